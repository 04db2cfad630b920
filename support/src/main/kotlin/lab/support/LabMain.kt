package lab.support

import com.github.ajalt.clikt.core.CliktCommand
import com.github.ajalt.clikt.core.CliktError
import com.github.ajalt.clikt.core.UsageError
import com.github.ajalt.clikt.core.parse
import com.github.ajalt.clikt.output.ParameterFormatter
import kotlin.system.exitProcess

/**
 * How every lab program ends, so that `make bench`, `make clients`, `make audit-pinning` and
 * `make io-bench` fail alike: bad input is one line on stderr that says what to do, with exit
 * code 2 (a [UsageError], or an exception [badInput] accepts); a failure the program names is
 * one line and exit code 1 ([failure]); `--help` and Clikt's other exits are Clikt's own.
 */
object LabMain {
    fun exit(
        label: String,
        command: CliktCommand,
        args: Array<String>,
        badInput: (Exception) -> Boolean = { false },
        failure: (Exception) -> Boolean = { false },
    ): Nothing {
        val code = try {
            command.parse(args)
            0
        } catch (e: UsageError) {
            // Not Clikt's usage block: the one line names the option and the fix.
            val what = e.message?.let { message -> "${e.paramName?.let { "$it: " } ?: ""}$message" }
                ?: e.formatMessage(command.currentContext.localization, ParameterFormatter.Plain).lineSequence().first().trimEnd('.')
            System.err.println("$label: $what; see make help")
            2
        } catch (e: CliktError) {
            command.echoFormattedHelp(e)
            e.statusCode
        } catch (e: Exception) {
            val code = when {
                badInput(e) -> 2
                failure(e) -> 1
                else -> throw e
            }
            e.message?.let { System.err.println("$label: $it") }
            code
        }
        exitProcess(code)
    }
}
