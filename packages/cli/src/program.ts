import { readFileSync } from 'node:fs'
import { Command } from 'commander'
import type { DevOptions } from './commands/dev.js'
import type { ExportOptions } from './commands/export.js'
import type { InspectOptions } from './commands/inspect.js'
import type { RunOptions } from './commands/run.js'
import type { ServeOptions } from './commands/serve.js'
import type { ViewOptions } from './commands/view.js'
import type { WorkerOptions } from './commands/worker.js'
import { UsageError } from './errors.js'
import type { Io } from './terminal.js'

/** How every command that takes a session id reads it (session-id.ts). */
const ID_FORMS = 'its id, a unique prefix of it, or latest'

/** This package's version, from its package.json (beside dist/ in the repository and in an install). */
function cliVersion(): string {
  const manifest = readFileSync(new URL('../package.json', import.meta.url), 'utf8')
  return (JSON.parse(manifest) as { version: string }).version
}

/** `--max-steps N`: a positive integer, else a usage error naming the flag. */
function maxStepsFlag(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`--max-steps: expected a positive integer, got ${JSON.stringify(value)}`)
  }
  return n
}

/**
 * The `bridle` program's grammar: each command's arguments, options and help. A command's code (and the packages
 * it boots) is imported only when that command runs, so `--help`, a usage error and a read command load no more
 * than they use (README.md, "Commands").
 */
export function program(io: Io, exit: { code: number }): Command {
  const cli = new Command('bridle')
    .description('Run, inspect and develop Bridle agents')
    .option('-c, --config <file>', 'app config (default: ./bridle.yaml, else the built-in app)')
    .option('--verbose', 'show stacks of plugin failures and everything cordis logs')
    .version(cliVersion(), '-V, --version', "print bridle's version")
    .exitOverride()
  const config = () => cli.opts<{ config?: string }>().config

  modelOptions(
    cli
      .command('run')
      .description('run one prompt as a turn, streaming the answer; persists the session')
      .argument('<prompt>', 'what to ask')
      .option('-s, --session <id>', `resume this session instead of starting one (${ID_FORMS})`)
      .option(
        '--max-steps <n>',
        'steps one turn may take (default: agent.maxSteps of bridle.yaml, else 50)',
        maxStepsFlag,
      ),
  ).action(async (prompt: string, o: Omit<RunOptions, 'config' | 'cwd'>) => {
    const { run } = await import('./commands/run.js')
    exit.code = await run(prompt, { ...o, config: config() }, io)
  })

  cli
    .command('sessions')
    .description('list stored sessions: id, created, turns, last activity')
    .option('--json', 'machine-readable output')
    .option('--root <dir>', 'read the JSONL sessions stored under DIR (no bridle.yaml needed)')
    .action(async (o: { json?: boolean; root?: string }) => {
      const { sessions } = await import('./commands/sessions.js')
      exit.code = await sessions({ ...o, config: config() }, io)
    })

  cli
    .command('inspect')
    .description("a session's turns and steps, or what one step's request contained")
    .argument('<id>', `the session: ${ID_FORMS}`)
    .option('--step <n>', "show step N's request (N, or TURN.STEP)")
    .option('--turn <t>', 'the turn --step refers to (default: the last turn with that step)')
    .option(
      '--full',
      'print sections, messages, runtime context and answers in full (else one line each, cut to the terminal)',
    )
    .option('--events', 'list every event (stream chunks are folded otherwise); without --step, the whole log')
    .option('--json', 'machine-readable output')
    .option('--verify', 'rebuild every request from the log and check it against request/digest')
    .option('--cache', 'per request, how much of the previous prefix held and why it broke')
    .option('--follow', 'then print each new event as it is written, by any process, until Ctrl-C')
    .option('--html <file>', 'write the session as one self-contained HTML page (the viewer, no server needed)')
    .option('--root <dir>', 'read the JSONL sessions stored under DIR (no bridle.yaml needed)')
    .action(async (id: string, o: Omit<InspectOptions, 'config'> & { html?: string }) => {
      const { html, ...rest } = o
      if (html === undefined) {
        const { inspect } = await import('./commands/inspect.js')
        exit.code = await inspect(id, { ...rest, config: config() }, io)
        return
      }
      const other = (['step', 'turn', 'events', 'json', 'verify', 'cache', 'follow', 'full'] as const).find(
        (k) => rest[k] !== undefined,
      )
      if (other) throw new UsageError(`--html writes the whole session; it cannot be combined with --${other}`)
      const { inspectHtml } = await import('./commands/view.js')
      exit.code = await inspectHtml(id, html, { config: config(), root: rest.root }, io)
    })

  cli
    .command('export')
    .description("a stored session's turns, model calls and tool calls as OpenTelemetry spans, with the log's times")
    .argument('<id>', `the session: ${ID_FORMS}`)
    .option('--otlp [url]', 'send them to an OTLP/HTTP receiver (default: the OTEL_EXPORTER_OTLP_* endpoint)')
    .option('--json <file>', 'write them as one OTLP/JSON request to FILE (- for stdout)')
    .option('--content', 'include message contents, redacted (off by default)')
    .action(async (id: string, o: Omit<ExportOptions, 'config'>) => {
      const { exportSession } = await import('./commands/export.js')
      exit.code = await exportSession(id, { ...o, config: config() }, io)
    })

  modelOptions(
    cli
      .command('dev')
      .description('interactive session; plugins in the watched folder hot-reload')
      .option('-w, --watch <dir>', 'plugin folder, relative to the app (default: plugins)')
      .option('-s, --session <id>', `resume this session (${ID_FORMS})`)
      .option(
        '--max-steps <n>',
        'steps one turn may take (default: agent.maxSteps of bridle.yaml, else 50)',
        maxStepsFlag,
      ),
  ).action(async (o: Omit<DevOptions, 'config'>) => {
    const { dev } = await import('./commands/dev.js')
    exit.code = await dev({ ...o, config: config() }, io)
  })

  cli
    .command('new')
    .description(
      'create something new; `bridle new plugin NAME` writes a plugin package that builds, tests and publishes',
    )
    .argument('<what>', 'what to create: plugin')
    .argument('<name>', 'the npm package name, e.g. @you/bridle-plugin-notes')
    .option('--dir <dir>', 'the folder to write it in (default: the name without its scope)')
    .action(async (what: string, name: string, o: { dir?: string }) => {
      if (what !== 'plugin') throw new UsageError(`new: unknown kind ${JSON.stringify(what)} (bridle new plugin NAME)`)
      const { newPlugin } = await import('./commands/new.js')
      exit.code = await newPlugin(name, o, io)
    })

  cli
    .command('view')
    .description('serve a read-only web viewer of the stored sessions on loopback; prints its URL')
    .argument('[id]', `open this session: ${ID_FORMS}`)
    .option('-p, --port <port>', 'port to listen on (default: a free one)')
    .option('--host <address>', 'address to bind (default: 127.0.0.1)')
    .option(
      '--expose',
      'allow a --host that is not loopback (no authentication: anyone who reaches it reads every session)',
    )
    .action(async (id: string | undefined, o: Omit<ViewOptions, 'config'>) => {
      const { view } = await import('./commands/view.js')
      exit.code = await view(id, { ...o, config: config() }, io)
    })

  cli
    .command('serve')
    .description('the HTTP front of a cluster: create sessions, post messages, stream events (needs session-postgres)')
    .option('-p, --port <port>', 'port to listen on (default: a free one)')
    .option('--host <address>', 'address to bind (default: 127.0.0.1)')
    .option('--max-body <bytes>', 'the largest request body (default 1048576)')
    .option('--no-viewer', 'do not serve the session viewer pages')
    .action(async (o: Omit<ServeOptions, 'config' | 'env'>) => {
      const { serve } = await import('./commands/serve.js')
      exit.code = await serve({ ...o, config: config() }, io)
    })

  cli
    .command('worker')
    .description("serve sessions from the cluster's queue until stopped, then drain (needs session-postgres)")
    .option('-n, --concurrency <n>', 'sessions served at once (default 2)')
    .option(
      '--handover <seconds>',
      "how long a silent worker's sessions wait before another worker takes them (default 10)",
    )
    .option(
      '--grace <seconds>',
      'on SIGINT/SIGTERM, how long to let sessions in flight finish before handing them back (default 30)',
    )
    .option('-m, --model <model>', 'model id for the chosen route')
    .option('--base-url <url>', 'an OpenAI-compatible endpoint (as BRIDLE_BASE_URL)')
    .action(async (o: Omit<WorkerOptions, 'config'>) => {
      const { worker } = await import('./commands/worker.js')
      exit.code = await worker({ ...o, config: config() }, io)
    })

  return cli
}

/** The model-route options `run` and `dev` share (README.md#choosing-the-model). */
function modelOptions(command: Command): Command {
  return command
    .option('-m, --model <model>', 'model id for the chosen route')
    .option(
      '--base-url <url>',
      'an OpenAI-compatible endpoint (as BRIDLE_BASE_URL), or the Anthropic endpoint with --provider anthropic',
    )
    .option(
      '--provider <route>',
      'the environment route: openai-compatible, deepseek or anthropic (default: the first configured)',
    )
}
