import type { ClusterWorker } from '@bridle/cluster'
import { boot } from '../boot.js'
import { resolveApp } from '../default-app.js'
import { UsageError } from '../errors.js'
import type { Io } from '../terminal.js'
import { requirePostgres } from './serve.js'
import { untilSignal } from './view.js'

export interface WorkerOptions {
  config?: string
  concurrency?: string
  handover?: string
  grace?: string
  model?: string
  baseUrl?: string
}

function integer(flag: string, text: string | undefined, min: number, max: number, fallback: number): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got "${text}"`)
  }
  return value
}

/**
 * `bridle worker`: boots the app (its model, tools and plugins, as `run` does) and serves sessions from the cluster's
 * queue until SIGINT/SIGTERM; then it drains: takes no new job, lets the sessions in flight finish (up to `--grace`
 * seconds) and hands the rest back to the queue, whose next worker continues them from the log.
 */
export async function worker(options: WorkerOptions, io: Io, stop: Promise<void> = untilSignal()): Promise<number> {
  const concurrency = integer('--concurrency', options.concurrency, 1, 256, 2)
  const handoverSeconds = integer('--handover', options.handover, 1, 3_600, 10)
  const graceMs = integer('--grace', options.grace, 0, 86_400, 30) * 1_000
  const app = await resolveApp(options.config)
  requirePostgres(app.plugins as never, 'worker')
  const booted = await boot(app, { model: options.model, baseUrl: options.baseUrl })
  let handedBack = 0
  try {
    const { ClusterWorker } = await import('@bridle/cluster')
    const model = booted.model
    const agent = {
      ...(model ? { provider: model.provider, model: model.model } : {}),
      ...(app.agent.maxTokens ? { maxTokens: app.agent.maxTokens } : {}),
    }
    const row = { package: '@bridle/cluster', config: { concurrency, handoverSeconds, agent } }
    await booted.start(ClusterWorker, row, 'bridle worker')
    const service = booted.ctx.get('clusterWorker') as ClusterWorker
    await service.ready
    io.err(
      `bridle worker: serving sessions from queue ${service.names.queue} (concurrency ${concurrency}); Ctrl-C drains and stops\n`,
    )
    await stop
    io.err(`bridle worker: draining (up to ${graceMs / 1000} s)…\n`)
    handedBack = (await service.drain(graceMs)).handedBack.length
    if (handedBack > 0) {
      // Disposing their agents would cancel the handed-back turns and clear their inboxes: leave them to the next worker.
      io.err(`bridle worker: handed ${handedBack} session(s) back to the queue; their leases lapse\n`)
      return 0
    }
  } finally {
    if (handedBack === 0) await booted.close()
  }
  io.err('bridle worker: stopped\n')
  return 0
}
