import { join } from 'node:path'
import {
  createSessionPreparation,
  Session,
  type SessionHeader,
  type SessionInspection,
  type SessionLocation,
  type SessionPreparation,
  type SessionRawLog,
  type SessionSnapshotInfo,
  type SessionSummary,
  type SessionStore,
} from '@bridle/session'
import { BindingRegistry, type PreparedSession } from './binding-registry.js'
import { repairFile } from './file-writer.js'
import type { FsLayer } from './fs-layer.js'
import { eventLine } from './line-format.js'
import { listStoredSessions } from './listing.js'
import { loadLive } from './live-sessions.js'
import { assertSameCwd } from './stored-validation.js'
import { LiveBinding } from './live-binding.js'
import { LogReader, type SessionBuilder } from './reader.js'
import { recoveryOf, recoveryWarning } from './recovery.js'
import { commitRepair, type RepairedLog } from './repair.js'
import { encodeSegment } from './segment.js'
import { storedMetaOf } from './stored-meta.js'
import { readSummaries } from './summary-read.js'

/** Everything a `JsonlBackend` is built from. `root` must be absolute. */
export interface JsonlBackendOptions {
  readonly root: string
  readonly fs: FsLayer
  readonly writeBatchMaxDelayMs: number
  readonly extraEventTypes: readonly string[]
  /** The session store of the backend's own context. */
  readonly sessions: SessionStore
  readonly warn: (message: string) => void
}

interface PreparedEntry extends PreparedSession {
  /** The running CRC at the end of the repaired file; `undefined` for a log without checksums. */
  readonly running: number | undefined
}

/**
 * The JSONL backend without the cordis wiring: binds live sessions to their files, answers the store events, and
 * implements the read/repair API (docs/persistence.md#binding-live-sessions, docs/persistence.md#the-committed-region).
 * `SessionJsonl` wraps it as `ctx.sessionPersistence`.
 */
export class JsonlBackend extends BindingRegistry<LiveBinding, PreparedEntry> {
  readonly root: string
  private readonly fs: FsLayer
  private readonly reader: LogReader
  private readonly delayMs: number
  /** Per binding, the event count when its exit flush failed; an unchanged binding is not retried (see flushBeforeExit). */
  private readonly exitFailures = new WeakMap<LiveBinding, number>()

  constructor(options: JsonlBackendOptions) {
    const extraTypes = new Set(options.extraEventTypes)
    super({
      plugin: 'session-jsonl',
      teardownKey: options.root,
      extraEventTypes: extraTypes,
      sessions: options.sessions,
      warn: options.warn,
    })
    this.root = options.root
    this.fs = options.fs
    this.delayMs = options.writeBatchMaxDelayMs
    this.reader = new LogReader(this.fs, this.root, extraTypes)
  }

  /** The absolute file path of a session id (the file may not exist). */
  pathOf(id: string): string {
    return join(this.root, `${encodeSegment(id)}.jsonl`)
  }

  /** True when a log file for `id` exists (one `existsSync`; the default-id minting of `ctx.sessions` asks it). */
  isStored(id: string): boolean {
    return this.fs.existsSync(this.pathOf(id))
  }

  /** `{kind: 'jsonl', path}` for a header; reads and creates nothing. Not an authorization. */
  locate(meta: Pick<SessionHeader, 'id'>): SessionLocation {
    return Object.freeze({ kind: 'jsonl', path: this.pathOf(meta.id) })
  }

  // ---- binding live sessions (docs/persistence.md#binding-live-sessions) ----

  protected override claim(session: Session, entry: PreparedEntry): void {
    const { meta, cursor, running } = entry
    const binding = this.bind(session, { path: this.pathOf(session.id), meta, cursor, materialized: true, running })
    binding.admitAll()
    this.writeNow(binding)
  }

  private bind(session: Session, start: ConstructorParameters<typeof LiveBinding>[1]): LiveBinding {
    const binding = new LiveBinding(session, start, {
      fs: this.fs,
      root: this.root,
      chain: this.chain,
      delayMs: this.delayMs,
      warn: this.warn,
    })
    this.bindings.set(session.id, binding)
    return binding
  }

  /**
   * The other binding cases: a new session, a refused create over an existing log (a sticky error for an empty
   * session already live when the plugin started), or an adoption.
   */
  protected override bindFresh(session: Session, veto: boolean): void {
    const id = session.id
    const path = this.pathOf(id)
    const meta = storedMetaOf(session.header)
    if (!this.fs.existsSync(path)) {
      const binding = this.bind(session, { path, meta, cursor: 0, materialized: false })
      if (session.events.length > 0) {
        binding.admitAll()
        this.writeNow(binding)
      }
      return
    }
    if (session.events.length === 0) {
      const error = new Error(`session "${id}" already has a persisted log on disk; load/resume it instead of creating`)
      if (veto) throw error
      this.bind(session, { path, meta, cursor: 0, materialized: true }).sticky = error
      return
    }
    const binding = this.bind(session, { path, meta, cursor: 0, materialized: true })
    const previous = this.teardownsInFlight()
    binding.init = this.chain
      .run(id, async () => {
        await previous
        await this.adopt(binding, path)
      })
      .catch((error: unknown) => {
        binding.sticky = error
      })
    binding.admitAll()
    this.writeNow(binding)
  }

  /**
   * Adoption: the stored cwd must equal the live one and the live events must reproduce the stored
   * prefix. A torn tail is truncated; an open turn is not closed, because the live session is the authority.
   */
  private async adopt(binding: LiveBinding, path: string): Promise<void> {
    const session = binding.session
    const id = session.id
    const stored = await this.reader.read(id, path)
    assertSameCwd(id, stored.meta.cwd, session.header.cwd)
    const live = session.events
    const matches =
      stored.events.length <= live.length &&
      stored.events.every((event, seq) => eventLine(event) === eventLine(live[seq]!))
    if (!matches)
      throw new Error(
        `session "${id}" already has a persisted log on disk that does not match this live session (id collision)`,
      )
    const recovery = recoveryOf(stored)
    if (recovery !== undefined) {
      await repairFile(this.fs, path, stored.committedBytes, new Uint8Array(0))
      this.warn(recoveryWarning(id, recovery))
    }
    binding.adopted(stored.events.length, stored.running)
  }

  /** Starts writing a binding's queued events at once (the first batch of a seeded or claimed session). */
  protected override writeNow(binding: LiveBinding): void {
    binding
      .flush()
      .catch((error: unknown) =>
        this.warn(
          `session-jsonl: background write for session "${binding.session.id}" failed (buffered events retained): ${String(error)}`,
        ),
      )
  }

  // ---- reading ----

  /** Headers of every materialized session, sorted by `createdAt`, then id; unreadable headers are skipped. */
  async list(signal?: AbortSignal): Promise<readonly SessionHeader[]> {
    return Object.freeze((await this.listSnapshots(signal)).map((snapshot) => snapshot.meta))
  }

  /** `{meta, revision}` for every materialized session (same set and order as `list`). */
  listSnapshots(signal?: AbortSignal): Promise<readonly SessionSnapshotInfo[]> {
    return listStoredSessions(this.fs, this.root, this.reader, this.warn, signal)
  }

  /** A summary of every materialized session (same set and order as `list`), read from both ends of each log. */
  async summaries(signal?: AbortSignal): Promise<readonly SessionSummary[]> {
    const snapshots = await this.listSnapshots(signal)
    return readSummaries(this.fs, this.root, (id) => this.pathOf(id), snapshots, signal)
  }

  /** The exact file text of `id`, read revision-stably; `undefined` when absent; a corrupt header rejects. */
  async readRaw(id: string, signal?: AbortSignal): Promise<SessionRawLog | undefined> {
    await this.quiet(id)
    const raw = await this.reader.readRaw(id, this.pathOf(id), signal)
    return raw === undefined ? undefined : Object.freeze(raw)
  }

  /**
   * A frozen `{meta, events}`. Live: the session's own header and events, no I/O (the turn may be open). Stored: the
   * committed prefix plus closers computed in memory; never writes.
   */
  async inspect(id: string, signal?: AbortSignal): Promise<SessionInspection> {
    const live = this.sessions.get(id)
    if (live !== undefined) return Object.freeze({ meta: live.header, events: live.events })
    await this.quiet(id)
    const { meta, events, recovery } = this.reader.validate(await this.reader.read(id, this.pathOf(id), signal))
    return Object.freeze(recovery === undefined ? { meta, events } : { meta, events, recovery })
  }

  /**
   * Live: flush and return a snapshot, refusing an open turn. Stored: commit any repair on the id chain (truncate the
   * torn tail, append closers) and return the re-read, balanced, frozen view; discarded bytes are logged and
   * reported as its `recovery`.
   */
  async load(id: string): Promise<SessionInspection> {
    return (await this.loadRepaired(id)).view
  }

  /** `load`, plus the running CRC at the end of the stored file (for the binding that will append to it). */
  private async loadRepaired(id: string, build?: SessionBuilder): Promise<RepairedLog> {
    const live = this.sessions.get(id)
    if (live !== undefined) return { view: await loadLive(this.sessions, live), running: undefined }
    await this.quiet(id)
    return this.chain.run(id, () =>
      commitRepair(this.fs, this.root, this.reader, id, this.pathOf(id), this.warn, build),
    )
  }

  /**
   * Loads (repairing) a stored session and prepares an unpublished `Session` seeded with it; the session appends
   * `session/end-seed`. When that session is announced, this backend claims it and writes the marker. Disposing the
   * preparation before that releases the claim.
   */
  async prepare(id: string, signal?: AbortSignal): Promise<SessionPreparation> {
    const entry = await this.preparing(id, async () => {
      signal?.throwIfAborted()
      // The store's session is built while the log is validated, so the log is checked once. If a session with this
      // id went live meanwhile, the validation builds a detached one and the store refuses below, as before.
      let built: Session | undefined
      const build: SessionBuilder = (events, header) => {
        if (this.sessions.get(id) !== undefined) return Session.fromRestore(id, events, { ...header })
        built = this.prepareSession(id, events, header)
        return built
      }
      const repaired = await this.loadRepaired(id, build)
      const { view, running } = repaired
      signal?.throwIfAborted()
      const meta = storedMetaOf(view.meta)
      const session =
        built !== undefined && repaired.session === built ? built : this.prepareSession(id, view.events, view.meta)
      return { session, meta, cursor: view.events.length, running }
    })
    return createSessionPreparation(entry.session, () => this.releasePrepared(id, entry))
  }

  // ---- process exit ----

  /**
   * Flushes every binding that still has queued events. The service calls it on `process.on('beforeExit')`: the
   * write-behind timer is unref'd, so a script that ends without `dispose()` would otherwise exit with its last batch
   * unwritten (and its last turn would look interrupted). The writes keep the loop alive; when they finish Node emits
   * `beforeExit` again and this finds nothing to do. A binding whose exit flush failed is not retried until it gets
   * new events, so a broken disk cannot keep the process alive forever. Resolves when every flush settled.
   */
  flushBeforeExit(): Promise<void> | undefined {
    if (!this.admitting) return undefined
    const flushes: Promise<void>[] = []
    for (const binding of this.bindings.values()) {
      if (binding.queue.idle || this.exitFailures.get(binding) === binding.session.events.length) continue
      flushes.push(
        binding.flush().catch((error: unknown) => {
          this.exitFailures.set(binding, binding.session.events.length)
          this.warn(
            `session-jsonl: session "${binding.session.id}" could not be written before the process exited: ${String(error)}`,
          )
        }),
      )
    }
    return flushes.length === 0 ? undefined : Promise.all(flushes).then(() => undefined)
  }
}
