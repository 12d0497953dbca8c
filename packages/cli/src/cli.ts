import { Command, CommanderError } from 'commander'
import { AppConfigError } from './app-config.js'
import { registerDev } from './commands/dev.js'
import { registerInspect } from './commands/inspect.js'
import { registerRun } from './commands/run.js'
import { registerSessions } from './commands/sessions.js'
import { registerView } from './commands/view.js'
import type { CommandContext } from './commands/command-context.js'
import { routeCordisLog } from './cordis-log.js'
import { errorText } from './error-text.js'
import { errorLine, errorStack, EXIT, RuntimeFailure, UsageError } from './errors.js'
import { envSecrets, redactingIo } from './redaction.js'
import type { Io } from './terminal.js'

/**
 * Commander's own errors (`error: unknown option '--x'`) in the CLI's grammar: one `bridle:` line with a hint
 * to the help of the command that failed.
 */
function commanderErrorLine(text: string, command: string): string {
  const message = text.trim().replace(/^error: /, '')
  return errorLine(`${message} (see '${command} --help')`)
}

/** Builds the `bridle` program. Each action stores its exit code in `exit.code`. */
function program(io: Io, exit: { code: number }) {
  const cli = new Command('bridle')
    .description('Run, inspect and develop Bridle agents')
    .option('-c, --config <file>', 'app config (default: ./bridle.yaml, else the built-in app)')
    .option('--verbose', 'show stacks of plugin failures and everything cordis logs')
    .exitOverride()
  const context: CommandContext = { io, exit, config: () => cli.opts<{ config?: string }>().config }
  registerRun(cli, context)
  registerSessions(cli, context)
  registerInspect(cli, context)
  registerDev(cli, context)
  registerView(cli, context)
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
  const io = redactingIo(rawIo, new Set([...(rawIo.secrets ?? []), ...envSecrets(env)]))
  const verbose = wantsVerbose(argv)
  const log = routeCordisLog(io, verbose)
  const exit = { code: 0 }
  try {
    await program(io, exit).parseAsync([...argv], { from: 'user' })
    return exit.code
  } catch (error) {
    return reportError(error, io, verbose)
  } finally {
    log.close()
  }
}
