import { createUserMessage, type UserMessage } from '@bridle/llm'
import { isSurfaceEvent, type SessionEvent } from '@bridle/session'

/** The name continuation notices carry as their source. */
export const CLUSTER_PLUGIN = '@bridle/cluster'

/** What a worker must put back before a resumed session can go on, after its previous worker stopped mid-turn. */
export interface Interruption {
  /** Input the interrupted turn claimed from the inbox but never entered (claimed is consumed: no one else has it). */
  readonly unentered: readonly { readonly target: 'next-turn' | 'next-step'; readonly message: UserMessage }[]
  /** The model still owed an answer: the turn's last surface message is user-role (a prompt or a tool result). */
  readonly owesAnswer: boolean
}

interface Splice {
  target: 'next-turn' | 'next-step'
  start: number
  removedCount?: number
  inserted: UserMessage[]
  outcome?: string
}

/**
 * Looks at a resumed log: when its last turn was cut short by its worker — closed `interrupted` by the crash
 * repair, or `aborted` because the process disposed the agent — returns what that turn left undone; otherwise
 * `undefined`. Input the turn claimed but never entered (a crash between the claim and the step's first write)
 * is found by replaying the inbox's splice records.
 */
export function interruptionOf(events: readonly SessionEvent[]): Interruption | undefined {
  let end = events.length - 1
  while (end >= 0 && events[end]!.type !== 'turn/end') end--
  if (end < 0) return undefined
  const reason = (events[end]!.data as { reason?: { kind?: string; reason?: { kind?: string } } }).reason
  const cutShort = reason?.kind === 'interrupted' || (reason?.kind === 'aborted' && reason.reason?.kind === 'disposed')
  if (!cutShort) return undefined
  let start = end - 1
  while (start >= 0 && events[start]!.type !== 'turn/start') start--
  let owesAnswer = false
  for (let i = end - 1; i > start; i--) {
    const event = events[i]!
    if (!isSurfaceEvent(event)) continue
    owesAnswer = event.type !== 'assistant/message'
    break
  }
  return { unentered: unenteredClaims(events, start, end), owesAnswer }
}

/** Messages claimed between `from` and `to` (seq indexes) that no `user/message` entered afterwards. */
function unenteredClaims(events: readonly SessionEvent[], from: number, to: number): Interruption['unentered'] {
  const queues: Record<string, UserMessage[]> = { 'next-turn': [], 'next-step': [] }
  const claimed: { target: 'next-turn' | 'next-step'; message: UserMessage }[] = []
  const entered = new Set<string>()
  for (let i = 0; i <= to; i++) {
    const event = events[i]!
    if (event.type === 'user/message') entered.add((event.data as { id: string }).id)
    if ((event.type as string) !== 'agent/inbox/spliced') continue
    const splice = event.data as unknown as Splice
    const queue = queues[splice.target]
    if (queue === undefined) continue
    const removed = queue.splice(splice.start, splice.removedCount ?? 0, ...splice.inserted)
    if (i > from && splice.outcome === undefined) {
      for (const message of removed) claimed.push({ target: splice.target, message })
    }
  }
  return claimed.filter((c) => !entered.has(c.message.id as string))
}

/**
 * The message that opens the turn continuing an interrupted one: a notice from this package (never a user
 * prompt), which tells the model why it is asked again.
 */
export function continuationNotice(): UserMessage {
  return createUserMessage(
    'The previous turn was interrupted before it finished (the worker serving this session stopped). Continue from ' +
      'where it left off. A tool whose outcome is unknown may or may not have run: check before repeating it.',
    {
      kind: 'plugin',
      plugin: CLUSTER_PLUGIN,
      form: 'notice',
      summary: 'the previous turn was interrupted; continue it',
    },
  )
}

/** What `resumeInterrupted` needs of an agent (`@bridle/agent-loop`'s `Agent`). */
export interface InterruptibleAgent {
  readonly session: { readonly events: readonly SessionEvent[] }
  readonly inbox: { prepend(target: 'next-turn' | 'next-step', message: UserMessage): void }
}

/**
 * Puts back what an interrupted turn left undone, at the front of the inbox so it runs before newer input: the
 * claimed-but-unentered messages (same ids, so each still enters the log once), and a continuation notice when the
 * model owed an answer. Returns what it found. The caller wakes the agent.
 */
export function resumeInterrupted(agent: InterruptibleAgent): Interruption | undefined {
  const interruption = interruptionOf(agent.session.events)
  if (interruption === undefined) return undefined
  const { unentered, owesAnswer } = interruption
  const prompts = unentered.filter((u) => u.target === 'next-turn')
  const steering = unentered.filter((u) => u.target === 'next-step')
  for (const u of [...steering].reverse()) agent.inbox.prepend('next-step', u.message)
  for (const u of [...prompts].reverse()) agent.inbox.prepend('next-turn', u.message)
  // An unentered prompt reopens the turn by itself; without one, the notice opens the continuing turn.
  if (owesAnswer && prompts.length === 0) agent.inbox.prepend('next-turn', continuationNotice())
  return interruption
}
