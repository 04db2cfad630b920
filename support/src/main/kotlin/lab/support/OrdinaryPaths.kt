package lab.support

/**
 * One request to each ordinary endpoint (no pinning trap): what the pinning checks walk to show
 * that a server's request paths do not pin. Round [i] asks for a dashboard of its own user, so
 * repeated rounds are not answered from one warm path.
 */
object OrdinaryPaths {
    fun round(i: Int): List<String> = listOf(
        "/health",
        "/json",
        "/delay?ms=5",
        "/cpu?iterations=1000",
        "/bytes?size=100000",
        "/dashboard/user-$i",
        "/stats",
    )
}
