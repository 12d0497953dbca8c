import { readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sealLog } from '@bridle/session-jsonl'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bridle, DEMO_YAML, devWith, makeApp, sessionIdOf } from './helpers.js'
import { startView } from './view-server.js'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const QUESTION = 'What is the package name of this project?'

/** The README's command table: each row's synopsis (its first code span) and the exit codes its last column names. */
function commandTable(): { synopsis: string; exits: string; codes: number[] }[] {
  const start = README.indexOf('| command | what it does | exits |')
  const end = README.indexOf('\n\n', start)
  return README.slice(start, end)
    .split('\n')
    .slice(2)
    .map((row) => {
      // cells split at the pipes that are not escaped (`\|` in a synopsis)
      const cells = row.replace(/\\\|/g, '\u0000').split('|')
      const exits = cells.at(-2)!.trim()
      return {
        synopsis: /^\| `([^`]+)`/.exec(row)![1]!,
        exits,
        codes: [...exits.matchAll(/\*\*(\d+)\*\*/g)].map((m) => Number(m[1])),
      }
    })
}

/** One way to make a command exit with a code: its arguments, or where another test holds it. */
interface Case {
  row: string
  code: number
  args?: (s: Sessions) => string[]
  run?: (s: Sessions) => Promise<number | null>
  /** Held by another test file, which must contain `proof`. */
  elsewhere?: { file: string; proof: string }
}

interface Sessions {
  app: string
  ok: string
  tampered: string
  damaged: string
  blocked: string
  busyPort: number
}

// A pre-step policy that blocks the prompt "stop": that turn ends without any request (nothing to verify).
const GATE =
  "export default { name: 'gate', apply(ctx) { ctx.on('agent/pre-step', (p, next) =>\n" +
  "  p.messages.some((m) => m.content.some((b) => b.text === 'stop')) ? { kind: 'reject' } : next()) } }\n"

const CASES: Case[] = [
  { row: 'bridle run', code: 0, args: () => ['run', 'hello'] },
  { row: 'bridle run', code: 1, args: () => ['run', '--max-steps', '1', QUESTION] },
  { row: 'bridle run', code: 1, args: () => ['run', '-s', 'nope', 'hello'] },
  { row: 'bridle run', code: 2, args: () => ['run', '--bogus', 'x'] },
  { row: 'bridle sessions', code: 0, args: () => ['sessions', '--json'] },
  { row: 'bridle sessions', code: 2, args: () => ['sessions', '--root', 'no-such-dir'] },
  { row: 'bridle inspect ID [--events]', code: 0, args: (s) => ['inspect', s.ok, '--events'] },
  { row: 'bridle inspect ID [--events]', code: 1, args: () => ['inspect', 'nope'] },
  { row: 'bridle inspect ID [--events]', code: 1, args: (s) => ['inspect', s.damaged] },
  { row: 'bridle inspect ID [--events]', code: 1, args: () => ['inspect', '2'] },
  { row: 'bridle inspect ID [--events]', code: 2, args: () => ['inspect'] },
  { row: 'bridle inspect ID --root', code: 0, args: (s) => ['inspect', s.ok, '--root', 'sessions'] },
  { row: 'bridle inspect ID --root', code: 1, args: () => ['inspect', 'nope', '--root', 'sessions'] },
  { row: 'bridle inspect ID --root', code: 2, args: (s) => ['inspect', s.ok, '--root', 'no-such-dir'] },
  { row: 'bridle inspect ID --step', code: 0, args: (s) => ['inspect', s.ok, '--step', '2'] },
  { row: 'bridle inspect ID --step', code: 1, args: (s) => ['inspect', s.ok, '--step', '9'] },
  { row: 'bridle inspect ID --step', code: 1, args: () => ['inspect', 'nope', '--step', '1'] },
  { row: 'bridle inspect ID --step', code: 2, args: (s) => ['inspect', s.ok, '--step', '0'] },
  { row: 'bridle inspect ID --step', code: 2, args: (s) => ['inspect', s.ok, '--step', '1.1', '--turn', '2'] },
  { row: 'bridle inspect ID --verify', code: 0, args: (s) => ['inspect', s.ok, '--verify'] },
  { row: 'bridle inspect ID --verify', code: 1, args: (s) => ['inspect', s.tampered, '--verify'] },
  { row: 'bridle inspect ID --verify', code: 3, args: (s) => ['inspect', s.blocked, '--verify'] },
  { row: 'bridle inspect ID --cache', code: 0, args: (s) => ['inspect', s.ok, '--cache'] },
  { row: 'bridle inspect ID --cache', code: 1, args: () => ['inspect', 'nope', '--cache'] },
  {
    row: 'bridle inspect ID --follow',
    code: 0,
    elsewhere: {
      file: 'cli-postgres.spec.ts',
      proof: "follower.kill('SIGINT')\n    }\n    expect(await exited).toBe(0)",
    },
  },
  { row: 'bridle inspect ID --follow', code: 2, args: (s) => ['inspect', s.ok, '--follow'] },
  { row: 'bridle inspect ID --html', code: 0, args: (s) => ['inspect', s.ok, '--html', 'out.html'] },
  { row: 'bridle inspect ID --html', code: 1, args: () => ['inspect', 'nope', '--html', 'out.html'] },
  { row: 'bridle inspect ID --html', code: 2, args: (s) => ['inspect', s.ok, '--html', 'nope/out.html'] },
  { row: 'bridle inspect ID --html', code: 2, args: (s) => ['inspect', s.ok, '--html', 'x.html', '--verify'] },
  // the cluster commands need PostgreSQL to run; their refusals do not
  {
    row: 'bridle serve',
    code: 0,
    elsewhere: { file: 'cli-cluster-postgres.spec.ts', proof: 'expect(await front.exit, front.out.stderr).toBe(0)' },
  },
  { row: 'bridle serve', code: 2, args: () => ['serve'] },
  {
    row: 'bridle worker',
    code: 0,
    elsewhere: { file: 'cli-cluster-postgres.spec.ts', proof: 'expect(await worker.exit, worker.out.stderr).toBe(0)' },
  },
  { row: 'bridle worker', code: 2, args: () => ['worker'] },
  { row: 'bridle export ID', code: 0, args: (s) => ['export', s.ok, '--json', '-'] },
  { row: 'bridle export ID', code: 1, args: () => ['export', 'nope', '--json', '-'] },
  { row: 'bridle export ID', code: 1, args: (s) => ['export', s.ok, '--otlp', `http://127.0.0.1:${s.busyPort}`] },
  { row: 'bridle export ID', code: 2, args: (s) => ['export', s.ok] },
  { row: 'bridle export ID', code: 2, args: (s) => ['export', s.ok, '--otlp', 'ftp://127.0.0.1/'] },
  { row: 'bridle export ID', code: 2, args: (s) => ['export', s.ok, '--json', 'nope/spans.json'] },
  {
    row: 'bridle new plugin',
    code: 0,
    args: () => [
      'new',
      'plugin',
      '@you/bridle-plugin-exits',
      '--dir',
      join(mkdtempSync(join(tmpdir(), 'exits-')), 'p'),
    ],
  },
  { row: 'bridle new plugin', code: 2, args: () => ['new', 'plugin', 'Not A Name'] },
  {
    row: 'bridle view',
    code: 0,
    run: async (s) => {
      const view = await startView(['latest'], s.app)
      return (await view.stop()).code
    },
  },
  { row: 'bridle view', code: 1, args: () => ['view', 'nope'] },
  { row: 'bridle view', code: 2, args: (s) => ['view', '-p', String(s.busyPort)] },
  { row: 'bridle view', code: 2, args: () => ['view', '--host', '0.0.0.0'] },
  { row: 'bridle dev', code: 0, run: async (s) => (await devWith(s.app, ['hello'])).code },
  { row: 'bridle dev', code: 0, run: async (s) => (await devWith(s.app, ['/compact'])).code },
  { row: 'bridle dev', code: 1, run: async (s) => (await devWith(s.app, [QUESTION], ['--max-steps', '1'])).code },
  { row: 'bridle dev', code: 1, run: async (s) => (await devWith(s.app, [], ['-s', 'nope'])).code },
  { row: 'bridle dev', code: 2, args: () => ['dev', '--bogus'] },
  { row: 'bridle --help', code: 0, args: () => ['--help'] },
  { row: 'bridle --help', code: 0, args: () => ['inspect', '--help'] },
  { row: 'bridle --help', code: 0, args: () => ['--version'] },
]

/** The README row a case belongs to: the row whose synopsis starts with `row`. */
const rowOf = (table: ReturnType<typeof commandTable>, c: Case) => {
  const rows = table.filter((r) => r.synopsis.startsWith(c.row))
  expect(rows, `one README row for ${c.row}`).toHaveLength(1)
  return rows[0]!
}

describe("the CLI README's command table: every command's exit codes, held by a run of each", () => {
  let s: Sessions
  let busy: Server
  beforeAll(async () => {
    const app = makeApp(DEMO_YAML.replace('plugins:\n', 'plugins:\n  - path: ./plugins/gate.mjs\n'))
    writeFileSync(join(app, 'plugins', 'gate.mjs'), GATE)
    const ok = sessionIdOf((await bridle(['run', QUESTION], app)).stderr)
    const tampered = sessionIdOf((await bridle(['run', QUESTION], app)).stderr)
    const damaged = sessionIdOf((await bridle(['run', 'hello'], app)).stderr)
    const blocked = sessionIdOf((await bridle(['run', 'stop'], app)).stderr)
    const edit = (id: string, reseal: boolean) => {
      const file = join(app, 'sessions', `${id}.jsonl`)
      const lines = readFileSync(file, 'utf8').split('\n')
      const at = lines.findIndex((l) => l.includes('"type":"user/message"'))
      lines[at] = lines[at]!.replace('"text":"', '"text":"edited ')
      writeFileSync(file, reseal ? sealLog(lines.join('\n')) : lines.join('\n'))
    }
    edit(tampered, true)
    edit(damaged, false)
    busy = createServer()
    const busyPort = await new Promise<number>((resolve) =>
      busy.listen(0, '127.0.0.1', () => resolve((busy.address() as { port: number }).port)),
    )
    s = { app, ok, tampered, damaged, blocked, busyPort }
  })
  afterAll(() => busy?.close())

  it('lists every command, and each row names its exit codes', () => {
    const table = commandTable()
    const commands = ['run', 'sessions', 'inspect', 'export', 'new', 'view', 'dev']
    for (const command of commands) expect(table.some((r) => r.synopsis.startsWith(`bridle ${command}`))).toBe(true)
    for (const row of table) {
      if (row.synopsis.endsWith('--json')) continue
      expect(row.codes.length, row.synopsis).toBeGreaterThan(0)
    }
    expect(table.find((r) => r.synopsis.startsWith('bridle inspect … --json'))?.exits).toBe(
      'as the same command without `--json`',
    )
    // every code a row names has a case below, and every case's code is one its row names
    for (const row of table) {
      const cased = new Set(CASES.filter((c) => row.synopsis.startsWith(c.row)).map((c) => c.code))
      expect([...cased].sort(), row.synopsis).toEqual([...new Set(row.codes)].sort())
    }
  })

  // each case named by its arguments, the sessions it uses by name
  const names: Sessions = {
    app: 'APP',
    ok: 'OK',
    tampered: 'TAMPERED',
    damaged: 'DAMAGED',
    blocked: 'BLOCKED',
    busyPort: 1,
  }
  const title = (c: Case) => (c.args ? c.args(names).join(' ') : (c.elsewhere?.file ?? 'as a session would'))
  it.each(CASES.map((c) => [`${c.row} → ${c.code}: ${title(c)}`, c] as const))(
    '%s',
    { timeout: 60_000 },
    async (_, c) => {
      const row = rowOf(commandTable(), c)
      expect(row.codes).toContain(c.code)
      if (c.elsewhere) {
        const source = readFileSync(new URL(c.elsewhere.file, import.meta.url), 'utf8')
        expect(source).toContain(c.elsewhere.proof)
        return
      }
      if (c.run) return expect(await c.run(s)).toBe(c.code)
      const out = await bridle(c.args!(s), s.app)
      expect(out.code, `${c.args!(s).join(' ')}\n${out.stderr}`).toBe(c.code)
      // every failure is one line in the CLI's grammar (a verification's verdict is its report, on stdout)
      if (c.code !== 0 && !c.row.endsWith('--verify')) expect(out.stderr, out.stderr).toMatch(/^bridle(?: \w+)?: /m)
    },
  )
})
