import { spawn, type ChildProcess } from 'node:child_process'
import { BIN, offlineEnv } from './helpers.js'

export interface RunningView {
  child: ChildProcess
  /** The URL `bridle view` printed (with `#/session/ID` when an id was given). */
  url: string
  /** Stops the server with SIGTERM and resolves its exit code and stderr. */
  stop(): Promise<{ code: number | null; stderr: string }>
}

/** Starts the built `bridle view ARGS` in `cwd` and waits for the URL it prints. */
export function startView(args: string[], cwd: string): Promise<RunningView> {
  const child = spawn(process.execPath, [BIN, 'view', ...args], {
    cwd,
    env: offlineEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    return { code: await closed, stderr }
  }
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d
      const url = /^(http:\S+)$/m.exec(stdout)?.[1]
      if (url) resolve({ child, url, stop })
    })
    void closed.then((code) => reject(new Error(`bridle view exited ${code} before printing a URL:\n${stderr}`)))
  })
}
