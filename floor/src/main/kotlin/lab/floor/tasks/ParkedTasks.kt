package lab.floor.tasks

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import java.util.concurrent.Executors

/**
 * Tasks of one [Model], each parked on a primitive of its own, added step by step. They stay
 * reachable (their primitives are kept in a list) until [release] hands each its value and waits
 * for it to finish, so a run ends with every task done, not abandoned.
 */
interface ParkedTasks {
    /** How many tasks are parked now. */
    val parked: Int

    /** Starts tasks until [total] are parked, and returns once every one of them is; throws [TasksDidNotPark] after [timeoutMs]. */
    fun parkUntil(total: Int, timeoutMs: Long)

    /** Wakes every task and waits for it to end; returns the sum of their results, which uses every live local. */
    fun release(): Long

    companion object {
        fun of(model: Model, shape: TaskShape): ParkedTasks = when (model) {
            Model.COROUTINE -> ParkedCoroutines(shape, Dispatchers.Default)
            Model.COROUTINE_VIRTUAL -> ParkedCoroutines(shape, Executors.newVirtualThreadPerTaskExecutor().asCoroutineDispatcher())
            Model.VIRTUAL -> ParkedThreads(Thread.ofVirtual(), shape)
            Model.PLATFORM -> ParkedThreads(Thread.ofPlatform().daemon(true), shape)
        }
    }
}

/** Some tasks did not reach their park in time: the step cannot be measured. */
class TasksDidNotPark(message: String) : IllegalStateException(message)
