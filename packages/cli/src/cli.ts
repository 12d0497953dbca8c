import { Command, CommanderError } from 'commander'
import { AppConfigError } from './app-config.js'
import { dev } from './commands/dev.js'
import { inspect } from './commands/inspect.js'
import { run } from './commands/run.js'
import { sessions } from './commands/sessions.js'
import { errorText } from './error-text.js'
import { UsageError } from './model-selection.js'
import { envSecrets, redactingIo } from './redaction.js'
import type { Io } from './terminal.js'

/** Builds the `bridle` program. Each action stores its exit code in `exit.code`. */
function program(io: Io, exit: { code: number }) {
  const cli = new Command('bridle')
    .description('Run, inspect and develop Bridle agents')
    .option('-c, --config <file>', 'app config (default: ./bridle.yaml, else the built-in app)')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
  const global = () => cli.opts<{ config?: string }>()

  cli
    .command('run')
    .description('run one prompt as a turn, streaming the answer; persists the session')
    .argument('<prompt>', 'what to ask')
    .option('-s, --session <id>', 'resume this session instead of starting one')
    .option('-m, --model <model>', 'model id for the chosen route')
    .option('--base-url <url>', 'an OpenAI-compatible endpoint (as BRIDLE_BASE_URL)')
    .action(async (prompt: string, o: { session?: string; model?: string; baseUrl?: string }) => {
      exit.code = await run(prompt, { ...o, config: global().config }, io)
    })

  cli
    .command('sessions')
    .description('list stored sessions: id, created, turns, last activity')
    .option('--json', 'machine-readable output')
    .action(async (o: { json?: boolean }) => {
      exit.code = await sessions({ ...o, config: global().config }, io)
    })

  cli
    .command('inspect')
    .description("a session's turns and steps, or what one step's request contained")
    .argument('<id>', 'session id')
    .option('--step <n>', "show step N's request (N, or TURN.STEP)")
    .option('--turn <t>', 'the turn --step refers to (default: the last turn with that step)')
    .option('--json', 'machine-readable output')
    .option('--verify', 'rebuild every request from the log and check it against request/digest')
    .option('--cache', 'per request, how much of the previous prefix held and why it broke')
    .action(async (id: string, o: { step?: string; turn?: string; json?: boolean; verify?: boolean; cache?: boolean }) => {
      exit.code = await inspect(id, { ...o, config: global().config }, io)
    })

  cli
    .command('dev')
    .description('interactive session; plugins in the watched folder hot-reload')
    .option('-w, --watch <dir>', 'plugin folder, relative to the app (default: plugins)')
    .option('-s, --session <id>', 'resume this session')
    .option('-m, --model <model>', 'model id for the chosen route')
    .option('--base-url <url>', 'an OpenAI-compatible endpoint (as BRIDLE_BASE_URL)')
    .action(async (o: { watch?: string; session?: string; model?: string; baseUrl?: string }) => {
      exit.code = await dev({ ...o, config: global().config }, io)
    })
  return cli
}

/**
 * Runs the CLI with `argv` (without node and script) and resolves the exit code: 0 success, 1 a failed
 * turn or verification, 2 a usage or app-config error.
 */
export async function main(argv: readonly string[], rawIo: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // every line the CLI prints passes the redaction of the keys it knows
  const io = redactingIo(rawIo, new Set([...(rawIo.secrets ?? []), ...envSecrets(env)]))
  const exit = { code: 0 }
  try {
    await program(io, exit).parseAsync([...argv], { from: 'user' })
    return exit.code
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2
    if (error instanceof UsageError || error instanceof AppConfigError) {
      io.err(`${error.message.startsWith('bridle') ? '' : 'bridle: '}${error.message}\n`)
      return 2
    }
    io.err(`bridle: ${errorText(error)}\n`)
    return 1
  }
}
