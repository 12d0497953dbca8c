import { resolve } from 'node:path'
import type { Session, SessionHeader, SessionPersistence } from '@bridle/session'
import { HomeService } from '@bridle/scope'
import type { Context } from 'cordis'
import { JsonlBackend } from './backend.js'
import { assertChecksumSupport } from './checksum.js'
import { registerCheckpoints } from './checkpoints.js'
import { flushOnExit } from './exit-flush.js'
import { enterPrepared, listenToSessions } from './live-sessions.js'
import { Config, ConfigSchema, PLUGIN_NAME, type SessionJsonlConfig } from './config.js'
import { nodeFs, type FsLayer } from './fs-layer.js'

/** Extra construction options (not part of the plugin config): the filesystem layer, for fault injection. */
export interface SessionJsonlOptions {
  readonly fs?: FsLayer
}

/**
 * The `session-jsonl` plugin: provides `ctx.sessionPersistence`, storing each session as one JSONL file under
 * `config.root` (docs/persistence.md). Load it with `ctx.plugin(SessionJsonl, { root })` after `SessionStore`. Its
 * methods hand on what the backend returns, typed as `SessionPersistence` declares them.
 */
export class SessionJsonl extends HomeService<SessionJsonlConfig> implements SessionPersistence {
  static readonly inject = ['sessions']
  static readonly Config = Config
  static readonly ConfigSchema = ConfigSchema

  /** The storage engine; kept out of the traced service surface. */
  protected readonly backend: JsonlBackend
  /** Stops flushing pending batches on `beforeExit` (called when the plugin stops). */
  private readonly stopExitFlush: () => void

  constructor(ctx: Context, config?: SessionJsonlConfig, options: SessionJsonlOptions = {}) {
    super(ctx, 'sessionPersistence', Config(config))
    assertChecksumSupport()
    const parsed = this.config
    const logger = ctx.logger(PLUGIN_NAME)
    this.backend = new JsonlBackend({
      root: resolve(parsed.root),
      fs: options.fs ?? nodeFs,
      writeBatchMaxDelayMs: parsed.writeBatchMaxDelayMs,
      extraEventTypes: parsed.extraEventTypes,
      sessions: ctx.sessions,
      warn: (message) => logger.warn(message.replace(/%/g, '%%')),
    })
    const backend = this.backend
    listenToSessions(ctx, backend)
    if (parsed.checkpoints) registerCheckpoints(ctx)
    backend.bindExisting()
    this.stopExitFlush = flushOnExit(backend)
  }

  /** The absolute root directory (resolved once, against `process.cwd()`, when the plugin started). */
  get root(): string {
    return this.backend.root
  }

  /** `{kind: 'jsonl', path}` for a session header, even before the file exists. Reads and creates nothing. */
  locate(meta: SessionHeader) {
    return this.backend.locate(meta)
  }

  /** True when a log file for `id` exists under the root; `ctx.sessions` skips such ids when it mints one. */
  isStored(id: string): boolean {
    return this.backend.isStored(id)
  }

  /** Headers of every materialized session, sorted by `createdAt` then id. A missing root gives `[]`. */
  list(signal?: AbortSignal) {
    return this.backend.list(signal)
  }

  /** `{meta, revision}` for every materialized session; any append or repair changes a revision. */
  listSnapshots(signal?: AbortSignal) {
    return this.backend.listSnapshots(signal)
  }

  /**
   * A summary of every materialized session (header, event count, turns, last activity, model, first prompt), in
   * `list()` order; each log is read from its two ends only, so listing long logs costs about what listing short ones
   * does.
   */
  summaries(signal?: AbortSignal) {
    return this.backend.summaries(signal)
  }

  /** `{header, fileName, content}` with the exact file text; `undefined` when absent. */
  readRaw(id: string, signal?: AbortSignal) {
    return this.backend.readRaw(id, signal)
  }

  /** A frozen `{meta, events}`: the live session, or the stored prefix plus closers (computed, never written). */
  inspect(id: string, signal?: AbortSignal) {
    return this.backend.inspect(id, signal)
  }

  /** Commits any repair and returns a balanced frozen `{meta, events}` with no open turn. */
  load(id: string) {
    return this.backend.load(id)
  }

  /** Loads `id` and prepares an unpublished session seeded with it (`ctx.agentLoop.resume` uses this). */
  prepare(id: string, signal?: AbortSignal) {
    return this.backend.prepare(id, signal)
  }

  /**
   * Prepares `id`, then enters and announces it on the caller's context (as `ctx.sessions.create` does) and returns
   * the live session; disposing the caller detaches it. If announcing throws, the preparation is disposed and
   * nothing beyond the repair is written.
   */
  async resume(id: string, signal?: AbortSignal): Promise<Session> {
    const preparation = await this.backend.prepare(id, signal)
    return enterPrepared(this.ctx, preparation)
  }

  protected override async stop(): Promise<void> {
    this.stopExitFlush()
    await this.backend.dispose()
  }
}
