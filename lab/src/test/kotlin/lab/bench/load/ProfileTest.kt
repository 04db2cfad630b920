package lab.bench.load

import lab.experiment.BadInput
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class ProfileTest {
    private val profiles = File(System.getProperty("lab.root"), "loadtests/profiles")

    @Test
    fun `every declared profile loads and passes its checks`() {
        val names = profiles.listFiles { f -> f.extension == "json" }.orEmpty().map { it.nameWithoutExtension }
        assertTrue(names.containsAll(listOf("smoke", "local", "vps")), "$names")
        names.forEach { Profile.load(profiles, it) }
    }

    @Test
    fun `the smoke profile is short enough for CI, a minute a server at most, and runs every phase a profile can have`() {
        val smoke = Profile.load(profiles, "smoke")
        assertTrue(smoke.durationSeconds <= 60, "${smoke.durationSeconds} s")
        assertTrue(smoke.warmSockets && smoke.jsonFullStepSeconds > 0 && smoke.curveServerCpuBudget > 0 && smoke.pinTrapsPerSecond > 0)
    }

    @Test
    fun `the local profile repeats every server, gives the server a CPU of its own, and says why its rates are what they are`() {
        val local = Profile.load(profiles, "local")
        assertEquals(3, local.repeats)
        assertEquals(1, local.serverCpus)
        assertEquals(0, local.calibrationSeconds, "the rate is chosen once, declared, not found at saturation")
        assertTrue(local.jsonRateReason.isNotBlank())
        assertTrue(local.dashboardRateReason.isNotBlank())
        assertTrue(local.dashboardWarmupSeconds > 0, "the dashboard warms up like /json")
    }

    @Test
    fun `a calibration probe holds every socket, warms up and runs only the rate under test`() {
        val vps = Profile.load(profiles, "vps")
        val probe = vps.probe(1_600)
        assertEquals(vps.idleSockets, probe.idleSockets)
        assertEquals(1, probe.socketSteps)
        assertTrue(probe.jsonWarmupSeconds in 1..vps.jsonWarmupSeconds, "${probe.jsonWarmupSeconds}")
        assertEquals(1_600, probe.jsonRatePerSecond)
        assertEquals(vps.calibrationSeconds, probe.jsonSeconds)
        assertEquals(0, probe.dashboardSeconds)
        assertEquals(0, probe.calibrationSeconds, "a probe does not calibrate again")
        assertEquals(0, Profile.load(profiles, "smoke").probe(100).pinTrapsPerSecond, "a probe measures /json alone")
    }

    @Test
    fun `an unknown profile is a one-line error that lists the known ones`() {
        val error = assertThrows<BadInput> { Profile.load(profiles, "huge") }
        assertTrue(error.message!!.startsWith("unknown profile 'huge'; choose one of: "), error.message)
        assertTrue("local" in error.message!! && '\n' !in error.message!!, error.message)
    }

    @Test
    fun `a misspelt key or an impossible value is refused, not ignored`(@TempDir dir: File) {
        val smoke = File(profiles, "smoke.json").readText()
        File(dir, "typo.json").writeText(smoke.replace("\"jsonSeconds\"", "\"jsonSecs\""))
        File(dir, "zero.json").writeText(smoke.replace(Regex("\"socketSteps\": \\d+"), "\"socketSteps\": 0"))
        assertThrows<BadInput> { Profile.load(dir, "typo") }
        val zero = assertThrows<BadInput> { Profile.load(dir, "zero") }
        assertTrue("socketSteps must be at least 1" in zero.message!!, zero.message)
        File(dir, "pins.json").writeText(smoke.replace(Regex("\"pinTrapsPerSecond\": \\d+"), "\"pinTrapsPerSecond\": -1"))
        val pins = assertThrows<BadInput> { Profile.load(dir, "pins") }
        assertTrue("pinTrapsPerSecond must be 0 or more" in pins.message!!, pins.message)
        File(dir, "gen.json").writeText(smoke.replace("{", "{\n  \"curveGenerator\": \"wrk\","))
        val generator = assertThrows<BadInput> { Profile.load(dir, "gen") }
        assertTrue("curveGenerator must be one of k6, vegeta, not \"wrk\"" in generator.message!!, generator.message)
        File(dir, "steady.json").writeText(smoke.replace("{", "{\n  \"jsonGenerator\": \"wrk\","))
        val steady = assertThrows<BadInput> { Profile.load(dir, "steady") }
        assertTrue("jsonGenerator must be one of k6, vegeta, not \"wrk\"" in steady.message!!, steady.message)
    }

    @Test
    fun `a full step shorter than a curve step, or with no json ladder before it, is refused`() {
        val smoke = Profile.load(profiles, "smoke")
        assertEquals(listOf(), smoke.copy(jsonFullStepSeconds = 0).problems())
        assertTrue(smoke.copy(jsonFullStepSeconds = 3).problems().single().startsWith("jsonFullStepSeconds must be 0 (none) or at least 4"))
        assertTrue(
            smoke.copy(jsonCurveRatesPerSecond = emptyList()).problems().any { it.startsWith("jsonFullStepSeconds needs the /json curve") },
        )
    }

    @Test
    fun `vegeta's pool holds at least what a curve's top needs in flight at its bound, so that a full pool shows on the wire`(
        @TempDir dir: File,
    ) {
        val curve = File(profiles, "curve.json").readText()
        // The curve profile's /dashboard top, 2,400/s in 100 ms, holds 240 in flight.
        File(dir, "small.json").writeText(curve.replace(Regex("\"curveConnections\": \\d+"), "\"curveConnections\": 239"))
        val small = assertThrows<BadInput> { Profile.load(dir, "small") }
        assertTrue(
            "curveConnections must be at least 240: /dashboard's top, 2400/s, answered in its 100 ms bound" in small.message!!,
            small.message,
        )
        File(dir, "enough.json").writeText(curve.replace(Regex("\"curveConnections\": \\d+"), "\"curveConnections\": 240"))
        assertEquals(240, Profile.load(dir, "enough").curveConnections)
    }
}
