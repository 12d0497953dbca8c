import { CommanderError } from 'commander'
import { errorText } from './error-text.js'
import { AppConfigError, errorLine, errorStack, EXIT, RuntimeFailure, UsageError } from './errors.js'
import { program } from './program.js'
import { holdEnvSecrets, redactingIo } from './redaction.js'
import type { Io } from './terminal.js'

/**
 * Commander's own errors (`error: unknown option '--x'`) in the CLI's grammar: one `bridle:` line with a hint
 * to the help of the command that failed.
 */
function commanderErrorLine(text: string, command: string): string {
  const message = text.trim().replace(/^error: /, '')
  return errorLine(`${message} (see '${command} --help')`)
}

/** The `bridle` program, its errors in the CLI's grammar. Each action stores its exit code in `exit.code`. */
function cliProgram(io: Io, exit: { code: number }) {
  const cli = program(io, exit)
  for (const command of [cli, ...cli.commands]) {
    const name = command === cli ? 'bridle' : `bridle ${command.name()}`
    command.configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      outputError: (text, write) => write(commanderErrorLine(text, name)),
    })
  }
  return cli
}

/** `--verbose`, read before commander parses (plugins start inside the action, and need to know). */
const wantsVerbose = (argv: readonly string[]) => {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).includes('--verbose')
}

/** The exit code of an error that ended a command, after printing its one line (and, verbose, its stack). */
function reportError(error: unknown, io: Io, verbose: boolean): number {
  if (error instanceof CommanderError) {
    // help and version exit 0; commander has printed its own line (or the help) for anything else
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage
  }
  const message = errorText(error)
  let code: number = EXIT.failure
  let line = message
  if (error instanceof UsageError || error instanceof AppConfigError) code = EXIT.usage
  else if (!(error instanceof RuntimeFailure) && /^session "[^"]*" not found$/.test(message)) {
    line = `${message} (bridle sessions lists the stored ones)`
  }
  io.err(errorLine(line))
  if (verbose)
    io.err(`${errorStack(error instanceof AppConfigError && error.cause !== undefined ? error.cause : error)}\n`)
  return code
}

/**
 * Runs the CLI with `argv` (without node and script) and resolves the exit code (README, "Exit codes"): 0 success,
 * 1 a runtime failure, 2 a usage or config error, 3 nothing verified. Every error line starts `bridle:`.
 */
export async function main(argv: readonly string[], rawIo: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // every line the CLI prints passes the redaction of the keys it knows
  holdEnvSecrets(env)
  const io = redactingIo(rawIo)
  const verbose = wantsVerbose(argv)
  const exit = { code: 0 }
  const cli = cliProgram(io, exit)
  // cordis' logger is routed when a command is about to run, so `--help` and a usage error never load cordis
  let log: { close(): void } | undefined
  cli.hook('preAction', async () => {
    log ??= (await import('./cordis-log.js')).routeCordisLog(io, verbose)
  })
  try {
    await cli.parseAsync([...argv], { from: 'user' })
    return exit.code
  } catch (error) {
    return reportError(error, io, verbose)
  } finally {
    log?.close()
  }
}
