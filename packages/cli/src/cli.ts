import { Command, CommanderError } from 'commander'
import { AppConfigError } from './app-config.js'
import { dev } from './commands/dev.js'
import { inspect } from './commands/inspect.js'
import { run } from './commands/run.js'
import { sessions } from './commands/sessions.js'
import { inspectHtml, view } from './commands/view.js'
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
    .option('--html <file>', 'write the session as one self-contained HTML page (the viewer, no server needed)')
    .action(async (id: string, o: { step?: string; turn?: string; json?: boolean; verify?: boolean; cache?: boolean; html?: string }) => {
      if (o.html === undefined) return void (exit.code = await inspect(id, { ...o, config: global().config }, io))
      const other = (['step', 'turn', 'json', 'verify', 'cache'] as const).find((k) => o[k] !== undefined)
      if (other) throw new UsageError(`bridle: --html writes the whole session; it cannot be combined with --${other}`)
      exit.code = await inspectHtml(id, o.html, { config: global().config }, io)
    })

  cli
    .command('view')
    .description('serve a read-only web viewer of the stored sessions on loopback; prints its URL')
    .argument('[id]', 'open this session')
    .option('-p, --port <port>', 'port to listen on (default: a free one)')
    .option('--host <address>', 'address to bind (default: 127.0.0.1)')
    .option('--expose', 'allow a --host that is not loopback (no authentication: anyone who reaches it reads every session)')
    .action(async (id: string | undefined, o: { port?: string; host?: string; expose?: boolean }) => {
      exit.code = await view(id, { ...o, config: global().config }, io)
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
    io.err(`bridle: ${(error as Error)?.message ?? String(error)}\n`)
    return 1
  }
}
