/**
 * Surface operations (docs/surface-and-reconstruction.md#surface-rules): the ordered list of seqs that make up the
 * model-visible history.
 *
 * One planner serves `append`, seeds, `foldSurface` and `SurfaceManager`. Planning never mutates: a rejected
 * candidate leaves the nodes and the replace generation unchanged, and applying an accepted plan is a separate step.
 */
import { SeqSet } from './seq-set.js'
import { isSurfaceEligibleType, type AnySessionEvent } from '../events/events.js'

/** A recorded replacement: event `seq` replaced nodes `start..end`, shadowing `shadowedSeqs`. */
export interface SurfaceReplacement {
  readonly seq: number
  readonly start: number
  readonly end: number
  readonly shadowedSeqs: readonly number[]
}

/** What an event does to the surface, decided by {@link planSurface}. */
export type SurfacePlan =
  | { readonly kind: 'none' }
  | { readonly kind: 'append'; readonly seq: number }
  | {
      readonly kind: 'replace'
      readonly seq: number
      readonly start: number
      readonly end: number
      readonly startIndex: number
      readonly endIndex: number
      readonly shadowedSeqs: readonly number[]
    }

/** The read side the planner needs: the current node order and the events it refers to. */
export interface SurfaceView {
  /** The seq the next event must carry. */
  readonly expectedSeq: number
  /** Current node order (seqs). */
  readonly nodes: readonly number[]
  /** Index of `seq` in `nodes`, or -1. */
  indexOf(seq: number): number
  /** The event at `seq` (only called for current nodes). */
  eventAt(seq: number): AnySessionEvent | undefined
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === null || proto === Object.prototype
}
const isNonNegativeSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0

function assertSourceEventSeqs(event: AnySessionEvent, sources: unknown): void {
  const { type, seq } = event
  if (!Array.isArray(sources)) throw new Error(`sourceEventSeqs on event at seq ${seq} must be an array when present`)
  if (sources.length === 0 && type !== 'assistant/message') {
    throw new Error('sourceEventSeqs must not be empty except on assistant/message')
  }
  for (let i = 0; i < sources.length; i++) {
    if (!(i in sources) || !isNonNegativeSafeInteger(sources[i])) {
      throw new Error(`session event "${type}" sourceEventSeqs must densely contain non-negative safe integers`)
    }
  }
  if (new Set(sources).size !== sources.length) throw new Error('sourceEventSeqs must not contain duplicates')
  for (const source of sources as number[]) {
    if (source >= seq) throw new Error(`sourceEventSeqs must reference earlier events: ${source} >= current seq ${seq}`)
  }
}

/** Structural JSON equality, ignoring the value at `skip` (a path of keys) on both sides. Iterative. */
function jsonEqualExcept(a: unknown, b: unknown, skip: readonly (string | number)[]): boolean {
  const stack: [unknown, unknown, number][] = [[a, b, 0]]
  while (stack.length > 0) {
    const [x, y, depth] = stack.pop()!
    if (x === y) continue
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false
    if (Array.isArray(x) !== Array.isArray(y)) return false
    const xKeys = Object.keys(x)
    const yKeys = Object.keys(y)
    if (xKeys.length !== yKeys.length) return false
    const onPath = depth >= 0 && depth < skip.length
    for (const key of xKeys) {
      if (!Object.hasOwn(y, key)) return false
      const matches = onPath && String(skip[depth]) === key
      if (matches && depth === skip.length - 1) continue
      stack.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key], matches ? depth + 1 : -1])
    }
  }
  return true
}

/** The plan of every event that leaves the surface alone (most of a log): one shared object. */
const NO_SURFACE_CHANGE: SurfacePlan = Object.freeze({ kind: 'none' })

const TOOL_RESULT_CONTENT_PATH = ['message', 'content', 0, 'content'] as const

/**
 * Decides what `event` does to the surface described by `view`, or throws the first violated surface rule
 * (docs/surface-and-reconstruction.md#surface-rules) with its exact message. Pure: nothing is mutated.
 */
export function planSurface(view: SurfaceView, event: AnySessionEvent): SurfacePlan {
  const { type, seq } = event
  if (seq !== view.expectedSeq)
    throw new Error(`session event seq ${seq} is not contiguous; expected ${view.expectedSeq}`)
  const surfaceOp = event.surfaceOp as unknown
  const sources = event.sourceEventSeqs as unknown
  if (!isSurfaceEligibleType(type)) {
    if (surfaceOp !== undefined)
      throw new Error(`session event "${type}" is not surface-eligible and cannot carry surfaceOp`)
    if (sources !== undefined)
      throw new Error(`session event "${type}" is not surface-eligible and cannot carry sourceEventSeqs`)
    return NO_SURFACE_CHANGE
  }
  if (surfaceOp === undefined)
    throw new Error(`session event "${type}" is surface-eligible and requires a surfaceOp marker`)
  if (surfaceOp !== 'append' && !isPlainObject(surfaceOp))
    throw new Error(`session event "${type}" carries an invalid surfaceOp`)

  let replace: { start: number; end: number; startIndex: number; endIndex: number } | undefined
  if (surfaceOp !== 'append') {
    const op = surfaceOp as Record<string, unknown>
    // Three own keys, and `op`, `start` and `end` each hold a valid value: so those three and nothing else.
    const shaped =
      Reflect.ownKeys(op).length === 3 &&
      op.op === 'replace' &&
      isNonNegativeSafeInteger(op.start) &&
      isNonNegativeSafeInteger(op.end)
    if (!shaped) throw new Error(`session event "${type}" carries an invalid replace surfaceOp`)
    const start = op.start as number
    const end = op.end as number
    const startIndex = view.indexOf(start)
    if (startIndex < 0) throw new Error(`surface replace: start seq ${start} not found in surface`)
    const endIndex = view.indexOf(end)
    if (endIndex < 0) throw new Error(`surface replace: end seq ${end} not found in surface`)
    if (startIndex > endIndex) {
      throw new Error(
        `surface replace: start seq ${start} (index ${startIndex}) is after end seq ${end} (index ${endIndex})`,
      )
    }
    replace = { start, end, startIndex, endIndex }
  }

  if (sources !== undefined) assertSourceEventSeqs(event, sources)
  if (replace === undefined) return { kind: 'append', seq }

  const shadowedSeqs = view.nodes.slice(replace.startIndex, replace.endIndex + 1)
  const cited = new Set(sources as readonly number[] | undefined)
  const missing = shadowedSeqs.filter((node) => !cited.has(node))
  if (missing.length > 0) {
    throw new Error(
      `surface replace: sourceEventSeqs must include every shadowed surface node; missing ${missing.join(', ')}`,
    )
  }
  if (type === 'tool/result') {
    if (shadowedSeqs.length !== 1)
      throw new Error('tool/result surface replacement must rewrite exactly one current node')
    const original = view.eventAt(shadowedSeqs[0]!)
    if (original?.type !== 'tool/result')
      throw new Error('tool/result surface replacement must target a current tool/result')
    if (!jsonEqualExcept(original.data, event.data, TOOL_RESULT_CONTENT_PATH)) {
      throw new Error('tool/result surface replacement may change only content')
    }
  }
  return { kind: 'replace', seq, ...replace, shadowedSeqs }
}

/**
 * Mutable surface state shared by the live session, `foldSurface` and `SurfaceManager`. `has(seq)` is O(1);
 * `indexOf` is O(nodes), used only by replaces.
 */
export class SurfaceState {
  readonly order: number[] = []
  readonly members = new SeqSet()
  replaceGeneration = 0

  indexOf(seq: number): number {
    return this.members.has(seq) ? this.order.indexOf(seq) : -1
  }

  /** Applies an accepted plan. */
  apply(plan: SurfacePlan): void {
    if (plan.kind === 'append') {
      this.order.push(plan.seq)
      this.members.add(plan.seq)
    } else if (plan.kind === 'replace') {
      this.order.splice(plan.startIndex, plan.endIndex - plan.startIndex + 1, plan.seq)
      for (const shadowed of plan.shadowedSeqs) this.members.delete(shadowed)
      this.members.add(plan.seq)
      this.replaceGeneration++
    }
  }
}

/** Reads a manager's private state; set by the class's static block, used only by {@link releaseSurfaceState}. */
let stateOf: (manager: SurfaceManager) => SurfaceState

/** Folds a surface incrementally over a window of a log starting at `baseSeq`; earlier targets are "not found". */
export class SurfaceManager {
  static {
    stateOf = (manager) => manager.state
  }

  private readonly state = new SurfaceState()
  private readonly replacementList: SurfaceReplacement[] = []
  private readonly windowEvents: AnySessionEvent[] = []
  private nodesCache: readonly number[] | undefined
  private surfaceView: SurfaceView | undefined

  constructor(
    log: Iterable<AnySessionEvent> = [],
    readonly baseSeq = 0,
  ) {
    for (const event of log) this.push(event)
  }

  /** The seq the next event must carry. */
  get expectedSeq(): number {
    return this.baseSeq + this.windowEvents.length
  }

  /** Plans and applies one event; throws (changing nothing) when the planner rejects it. */
  push(event: AnySessionEvent): SurfacePlan {
    const plan = planSurface(this.view(), event)
    this.windowEvents.push(event)
    this.state.apply(plan)
    if (plan.kind !== 'none') this.nodesCache = undefined
    if (plan.kind === 'replace') {
      this.replacementList.push(
        Object.freeze({
          seq: plan.seq,
          start: plan.start,
          end: plan.end,
          shadowedSeqs: Object.freeze([...plan.shadowedSeqs]),
        }),
      )
    }
    return plan
  }

  /** A frozen snapshot of the node order, cached until the surface changes. */
  get nodes(): readonly number[] {
    return (this.nodesCache ??= Object.freeze([...this.state.order]))
  }

  get replacements(): readonly SurfaceReplacement[] {
    return Object.freeze([...this.replacementList])
  }

  get replaceGeneration(): number {
    return this.state.replaceGeneration
  }

  has(seq: number): boolean {
    return this.state.members.has(seq)
  }

  /** The planner's live view of this manager, one object for its lifetime (no allocation per push). */
  private view(): SurfaceView {
    if (this.surfaceView === undefined) {
      const self = this
      const { state, windowEvents, baseSeq } = this
      this.surfaceView = {
        get expectedSeq() {
          return self.expectedSeq
        },
        nodes: state.order,
        indexOf: (seq) => state.indexOf(seq),
        eventAt: (seq) => windowEvents[seq - baseSeq],
      }
    }
    return this.surfaceView
  }
}

/**
 * The state `manager`'s accepted pushes built, handed over (the manager must not be pushed to afterwards): a session
 * seeded from the same events adopts it instead of applying every plan a second time. Package-private: the public
 * `SurfaceManager` exposes no mutable state.
 */
export function releaseSurfaceState(manager: SurfaceManager): SurfaceState {
  return stateOf(manager)
}

/** The result of {@link foldSurface}: detached node order and every replacement, in log order. */
export interface FoldedSurface {
  readonly nodes: readonly number[]
  readonly replacements: readonly SurfaceReplacement[]
}

/** Replays `events` from seq 0 and returns the surface. Pure; planner errors propagate. O(events). */
export function foldSurface(events: Iterable<AnySessionEvent>): FoldedSurface {
  const manager = new SurfaceManager(events, 0)
  return {
    nodes: [...manager.nodes],
    replacements: manager.replacements.map((r) => ({ ...r, shadowedSeqs: [...r.shadowedSeqs] })),
  }
}
