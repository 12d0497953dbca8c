import { type SessionHeader, SessionStore, type SessionPersistence } from '@bridle/session'
import { Context, Logger } from 'cordis'
import { afterEach, onTestFinished } from 'vitest'

/** The backend config keys every backend shares (the rest of its config comes from the driver). */
export interface SharedConfig {
  readonly writeBatchMaxDelayMs?: number
  readonly checkpoints?: boolean
  readonly extraEventTypes?: readonly string[]
}

/** The header fields a stored session carries: the `SessionHeader` minus unknown keys, with plain-string ids. */
export type StoredHeader = Pick<SessionHeader, 'version' | 'createdAt' | 'cwd' | 'seedLength'> & {
  readonly id: string
  readonly parentSession?: string
}

/** A loaded backend plugin. */
export interface LoadedBackend {
  readonly persistence: SessionPersistence
  /** Disposes the plugin and resolves once its teardown (final flushes) has settled. */
  stop(): Promise<void>
}

/**
 * What a backend hands the conformance suite: how to load it over a store, how to write a stored session behind
 * its back, how to see what it stored, and how to make its next write fail for real.
 */
export interface PersistenceDriver<S = unknown> {
  /** The plugin name: the prefix of its warnings and the name of its logger (`session-jsonl`). */
  readonly name: string
  /** A fresh, empty store (a temp directory, a fresh schema). */
  newStore(): S
  /** Loads the backend plugin on `ctx` (which already has `SessionStore`) over `store`. */
  load(ctx: Context, store: S, config?: SharedConfig): LoadedBackend
  /** Stores a session directly: its header and its events, given as JSON values in seq order. */
  writeStored(store: S, header: StoredHeader, events: readonly object[]): Promise<void>
  /** Stores a session whose header names a foreign log format `version`. */
  writeForeignVersion(store: S, id: string, version: number): Promise<void>
  /** The seqs stored for `id`, in stored order; `[]` when nothing is stored. */
  storedSeqs(store: S, id: string): Promise<number[]>
  /** Makes the next durable write of `id` fail; resolves a pattern the resulting error message matches. */
  failNextWrite(store: S, id: string): Promise<RegExp>
  /** How the backend words a stored session that does not match the live one it should adopt. */
  collisionMessage(id: string): string
  /** How the backend words binding an empty live session whose id is already stored. */
  existingMessage(id: string): string
}

/** A cordis app with `SessionStore` and the backend loaded. */
export interface ContractApp<S = unknown> extends LoadedBackend {
  readonly ctx: Context
  readonly store: S
}

const started: LoadedBackend[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((backend) => backend.stop().catch(() => undefined)))
})

/** Loads the backend through the driver and stops it after the current test. */
export function loadBackend<S>(
  driver: PersistenceDriver<S>,
  ctx: Context,
  store: S,
  config?: SharedConfig,
): LoadedBackend {
  const loaded = driver.load(ctx, store, config)
  let stopping: Promise<void> | undefined
  const backend: LoadedBackend = { persistence: loaded.persistence, stop: () => (stopping ??= loaded.stop()) }
  started.push(backend)
  return backend
}

/** A fresh app over `store` (a fresh store by default). */
export function makeApp<S>(
  driver: PersistenceDriver<S>,
  config?: SharedConfig,
  store: S = driver.newStore(),
): ContractApp<S> {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  return { ctx, store, ...loadBackend(driver, ctx, store, config) }
}

/** Captures the backend's warnings for the current test. */
export function captureWarnings(name: string): string[] {
  const seen: string[] = []
  const target = {
    record(record: { name: string; type: string; content: string }) {
      if (record.name === name && record.type === 'warn') seen.push(record.content)
    },
  }
  ;(Logger.targets as unknown[]).push(target)
  onTestFinished(() => {
    const targets = Logger.targets as unknown[]
    const index = targets.indexOf(target)
    if (index >= 0) targets.splice(index, 1)
  })
  return seen
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected a rejection')
}
