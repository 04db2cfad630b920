package lab.jetty

import java.util.concurrent.ExecutorService

/**
 * Where a Jetty server runs blocking work: each request, each WebSocket's task and each
 * downstream call. This is the one thing vthread-server and platform-server pass in
 * differently; the rest of the Jetty code is shared, so any difference in their figures
 * comes from here.
 *
 * [executor] throws `RejectedExecutionException` when it has no thread left to give; the
 * server then answers 503 (or closes a WebSocket with 1013) instead of queueing.
 */
class ThreadModel(val executor: ExecutorService)
