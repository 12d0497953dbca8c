import { createUserMessage, type ContentBlock, type UserMessage } from '@bridle/llm'
import type { Session, SessionEvent } from '@bridle/session'
import type { ContextSnapshotSection } from '@bridle/system-prompt'

/** The plugin name on every runtime-context snapshot message (its `source.plugin`). */
export const SNAPSHOT_PLUGIN = '@bridle/system-prompt'

/** Text of the message that retires earlier snapshots once no runtime context is active. */
export const RUNTIME_CONTEXT_CLEARED =
  'Current runtime context: none. Earlier runtime-context snapshots no longer apply.'

/** `undefined`: never a snapshot; `null`: none retained now; else the retained snapshot's seq and text. */
export type RetainedSnapshot = undefined | null | { seq: number; text: string | undefined }

function isOwned(event: SessionEvent): boolean {
  if (event.type !== 'user/message') return false
  const source = (event.data as { source?: { kind?: unknown; plugin?: unknown } } | null)?.source
  return source?.kind === 'plugin' && source.plugin === SNAPSHOT_PLUGIN
}

function singleText(event: SessionEvent): string | undefined {
  const content = (event.data as { content?: readonly ContentBlock[] }).content
  if (!Array.isArray(content) || content.length !== 1) return undefined
  const block = content[0] as ContentBlock
  return block.type === 'text' ? block.text : undefined
}

/**
 * Station S5's memory: which runtime-context snapshot the model currently sees in its history, so an
 * unchanged environment is not repeated and a changed (or vanished) one supersedes the old snapshot.
 * Restored from the log at construction and kept current from `session/event`.
 */
export class RuntimeContextProjection {
  retained: RetainedSnapshot = undefined

  /** Scans the log backwards: the newest owned message sets `null`; the newest still on the surface is retained. */
  constructor(session: Session) {
    const events = session.events
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!
      if (!isOwned(event)) continue
      if (this.retained === undefined) this.retained = null
      if (session.surface.has(event.seq)) {
        this.retained = { seq: event.seq, text: singleText(event) }
        break
      }
    }
  }

  /**
   * Live update for one committed event of this agent's session: an owned `user/message` becomes the
   * retained snapshot; a surface replacement citing the retained seq (compaction) clears it.
   */
  observe(event: SessionEvent): void {
    if (isOwned(event)) {
      this.retained = { seq: event.seq, text: singleText(event) }
      return
    }
    const op = event.surfaceOp
    if (op === undefined || op === 'append' || !this.retained) return
    if (event.sourceEventSeqs?.includes(this.retained.seq)) this.retained = null
  }

  /**
   * The snapshot message this step should enter, or `undefined` when the model already sees it.
   * `current` is the wrapped snapshot text (`''` when no context rendered anything).
   */
  project(current: string, sections: readonly ContextSnapshotSection[]): UserMessage | undefined {
    if (this.retained === undefined && current === '') return undefined
    const snapshot = current === '' ? RUNTIME_CONTEXT_CLEARED : current
    if (this.retained && this.retained.text === snapshot) return undefined
    const source =
      current === ''
        ? { kind: 'plugin' as const, plugin: SNAPSHOT_PLUGIN }
        : {
            kind: 'plugin' as const,
            plugin: SNAPSHOT_PLUGIN,
            form: 'snapshot' as const,
            sections: sections.map((s) => ({ name: s.name, text: s.text })),
          }
    return createUserMessage([{ type: 'text', text: snapshot }], source)
  }
}
