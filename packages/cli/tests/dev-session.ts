import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { BIN, offlineEnv } from './helpers.js'

/** A running `bridle dev`: write prompts, wait for lines on stderr. */
export class DevSession {
  stderr = ''
  stdout = ''
  private waiters: { pattern: RegExp; from: number; resolve: () => void }[] = []
  readonly child: ChildProcessWithoutNullStreams

  constructor(cwd: string, args: string[] = []) {
    this.child = spawn(process.execPath, [BIN, 'dev', ...args], { cwd, env: offlineEnv() })
    this.child.stdout.on('data', (d) => (this.stdout += d))
    this.child.stderr.on('data', (d) => {
      this.stderr += d
      this.waiters = this.waiters.filter((w) =>
        w.pattern.test(this.stderr.slice(w.from)) ? (w.resolve(), false) : true,
      )
    })
  }

  /** Resolves when `pattern` appears in stderr after the current end (or anywhere, with `from = 0`). */
  waitFor(pattern: RegExp, from = this.stderr.length): Promise<void> {
    if (pattern.test(this.stderr.slice(from))) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push({ pattern, from, resolve }))
  }

  async prompt(text: string) {
    const ready = this.waitFor(/bridle dev: ready\n/)
    this.child.stdin.write(`${text}\n`)
    await ready
  }

  async end(): Promise<number | null> {
    this.child.stdin.end()
    return new Promise((resolve) => this.child.on('close', resolve))
  }
}
