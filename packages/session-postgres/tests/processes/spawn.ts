import { spawn, type ChildProcess } from 'node:child_process'

/** A running child of `child.ts`: its stdout lines so far, waiting helpers, and its exit. */
export interface RunningChild {
  readonly process: ChildProcess
  readonly lines: string[]
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>
  /** Resolves with the first line (already seen or future) that `match` accepts. */
  waitFor(match: (line: string) => boolean, timeoutMs?: number): Promise<string>
  /** Counts the lines `match` accepts so far. */
  count(match: (line: string) => boolean): number
}

/** Spawns `node <bundle> <role> <config>` and collects its stdout lines. */
export function spawnChild(bundle: string, role: string, config: object): RunningChild {
  const child = spawn(process.execPath, [bundle, role, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = []
  let buffer = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8')
    let newline: number
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      lines.push(line)
      for (const waiter of [...waiters]) {
        if (!waiter.match(line)) continue
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(line)
      }
    }
  })
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve, reject) => {
      child.on('error', reject)
      child.on('exit', (code, signal) => resolve({ code, signal, stderr }))
    },
  )
  return {
    process: child,
    lines,
    exit,
    count: (match) => lines.filter(match).length,
    waitFor(match, timeoutMs = 60_000) {
      const seen = lines.find(match)
      if (seen !== undefined) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching line within ${timeoutMs} ms; got:\n${lines.join('\n')}\n${stderr}`)),
          timeoutMs,
        )
        const waiter = {
          match,
          resolve: (line: string) => {
            clearTimeout(timer)
            resolve(line)
          },
        }
        waiters.push(waiter)
        void exit.then(({ code, signal }) => {
          if (!waiters.includes(waiter)) return
          clearTimeout(timer)
          reject(
            new Error(`child exited (${code ?? signal}) before a matching line; got:\n${lines.join('\n')}\n${stderr}`),
          )
        })
      })
    },
  }
}
