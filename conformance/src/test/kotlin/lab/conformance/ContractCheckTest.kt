package lab.conformance

import lab.verify.ContractCheck
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.FieldSource
import java.util.concurrent.TimeUnit
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** `make bench`'s check before it loads a server: every catalogue server passes it, and a program that is no lab server does not. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ContractCheckTest {
    @ParameterizedTest
    @FieldSource("lab.conformance.Servers#all")
    fun `every server of the catalogue keeps the contract the bench checks`(name: String) {
        assertNull(ContractCheck.firstBreach(ConformanceLab.server(name).baseUrl))
    }

    @Test
    fun `a program that breaks the contract is named with the first case it broke`() {
        // The stub answers /health, but none of the contract's other paths.
        val breach = ContractCheck.firstBreach(ConformanceLab.stub.baseUrl)
        assertTrue(breach != null && breach.startsWith("answered GET /json with "), "$breach")
    }
}
