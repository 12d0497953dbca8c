import { Context, type ForkScope, Logger } from 'cordis'
import { createScope } from '@bridle/scope'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Session, SessionStore, type AnySessionEvent } from '../src/index.js'
import { user } from './helpers.js'

let warnings: string[]
let target: Logger.Target
beforeEach(() => {
  warnings = []
  target = { colors: 0, levels: { base: 3 }, record: (r: Logger.Record) => warnings.push(r.content) }
  Logger.targets.push(target)
})
afterEach(() => {
  Logger.targets.splice(Logger.targets.indexOf(target), 1)
})

function setup() {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  return ctx
}

const flushMicrotasks = () => new Promise<void>((resolve) => setTimeout(resolve, 0))

describe('SessionStore.prepare', () => {
  it('mints session-<n>, skipping taken ids; a taken id is refused', () => {
    const ctx = setup()
    ctx.sessions.create('session-2')
    expect(ctx.sessions.prepare().id).toBe('session-1')
    expect(ctx.sessions.prepare().id).toBe('session-3')
    expect(() => ctx.sessions.prepare('session-2')).toThrow('session "session-2" already exists')
  })

  it('builds the header from meta, validated like any header; prepared sessions are unpublished', () => {
    const ctx = setup()
    const s = ctx.sessions.prepare('a', { meta: { cwd: '/w', createdAt: 7, parentSession: 'p', seedLength: 0 } })
    expect(s.header).toEqual({ version: 0, id: 'a', createdAt: 7, cwd: '/w', parentSession: 'p', seedLength: 0 })
    expect(ctx.sessions.get('a')).toBeUndefined()
    expect(() => ctx.sessions.prepare('b', { meta: { cwd: 'rel' } })).toThrow(
      'session header cwd must be an absolute path, got "rel"',
    )
  })

  it('seedSource persistence adopts the seed in restore mode', () => {
    const ctx = setup()
    const event = { type: 'turn/start', seq: 0, time: 1, data: { turn: 1 } }
    const s = ctx.sessions.prepare('r', { seed: [event], seedSource: 'persistence' })
    expect(s.events[0]).toBe(event)
    expect(s.events.at(-1)!.type).toBe('session/end-seed')
    const copy = ctx.sessions.prepare('c', { seed: [event] })
    expect(copy.events[0]).not.toBe(event)
  })
})

describe('SessionStore.enter / announce', () => {
  it('rejects a present id and an object attached to any store; detach is idempotent and never removes a replacement', () => {
    const ctx = setup()
    const other = setup()
    const s = ctx.sessions.prepare('x')
    const detach = ctx.sessions.enter(s)
    expect(() => ctx.sessions.enter(ctx.sessions.prepare('y'))).not.toThrow()
    expect(() => ctx.sessions.enter(Session.create('x'))).toThrow('session "x" already exists')
    expect(() => other.sessions.enter(s)).toThrow('session "x" is already attached to a store')
    detach()
    detach()
    expect(ctx.sessions.get('x')).toBeUndefined()
    const replacement = Session.create('x')
    ctx.sessions.enter(replacement)
    detach()
    expect(ctx.sessions.get('x')).toBe(replacement)
    expect(() => other.sessions.enter(s)).not.toThrow()
  })

  it('announce requires a live entry and happens once; enter alone does not announce', () => {
    const ctx = setup()
    const created: string[] = []
    ctx.on('session/created', (s) => void created.push(s.id))
    const s = ctx.sessions.prepare('a')
    expect(() => ctx.sessions.announce(s)).toThrow('session "a" is not live in this store')
    ctx.sessions.enter(s)
    expect(created).toEqual([])
    ctx.sessions.announce(s)
    expect(created).toEqual(['a'])
    expect(() => ctx.sessions.announce(s)).toThrow('session "a" was already announced')
    expect(() => ctx.sessions.announce(Session.create('a'))).toThrow('session "a" is not live in this store')
  })

  it('a re-entrant announce is refused (the entry is marked before dispatch)', () => {
    const ctx = setup()
    let inner: unknown
    ctx.on('session/created', (s) => {
      try {
        ctx.sessions.announce(s)
      } catch (e) {
        inner = e
      }
    })
    const s = ctx.sessions.prepare('a')
    ctx.sessions.enter(s)
    ctx.sessions.announce(s)
    expect((inner as Error).message).toBe('session "a" was already announced')
  })

  it('a synchronous listener throw propagates and skips later listeners; a rejection is logged', async () => {
    const ctx = setup()
    const heard: string[] = []
    ctx.on('session/created', () => Promise.reject(new Error('async nope')) as never)
    ctx.on('session/created', () => {
      throw new Error('veto')
    })
    ctx.on('session/created', () => void heard.push('late'))
    const s = ctx.sessions.prepare('a')
    ctx.sessions.enter(s)
    expect(() => ctx.sessions.announce(s)).toThrow('veto')
    expect(heard).toEqual([])
    await flushMicrotasks()
    expect(warnings).toContain('session "a": session/created listener rejected: Error: async nope')
  })
})

describe('SessionStore.create', () => {
  it('enters and announces on the caller’s context; disposing the calling plugin detaches and emits session/disposed', () => {
    const ctx = setup()
    const log: string[] = []
    ctx.on('session/created', (s) => void log.push(`created ${s.id}`))
    ctx.on('session/disposed', (s) => void log.push(`disposed ${s.id}`))
    let session!: Session
    const fork = ctx.plugin({
      inject: ['sessions'],
      apply: (inner: Context) => {
        session = inner.sessions.create('owned')
      },
    })
    expect(ctx.sessions.get('owned')).toBe(session)
    expect(ctx.sessions.list()).toEqual([session])
    fork.dispose()
    expect(ctx.sessions.get('owned')).toBeUndefined()
    expect(log).toEqual(['created owned', 'disposed owned'])
  })

  it('a throwing session/created listener rolls back: detach, paired session/disposed, rethrow', () => {
    const ctx = setup()
    const log: string[] = []
    ctx.on('session/created', (s) => {
      log.push(`created ${s.id}`)
      throw new Error(`session "${s.id}" already has a persisted log on disk; load/resume it instead of creating`)
    })
    ctx.on('session/disposed', (s) => void log.push(`disposed ${s.id}`))
    expect(() => ctx.sessions.create('s1')).toThrow(
      'session "s1" already has a persisted log on disk; load/resume it instead of creating',
    )
    expect(ctx.sessions.get('s1')).toBeUndefined()
    expect(log).toEqual(['created s1', 'disposed s1'])
    expect(() => ctx.sessions.create('s1')).toThrow() // still vetoed, but the id is free again
  })

  it('create/unload race: a session/created listener disposing the creating plugin still detaches once the announce unwinds', () => {
    const ctx = setup()
    const log: string[] = []
    let owner: ForkScope | undefined
    ctx.on('session/created', (s) => {
      log.push(`created ${s.id}`)
      owner?.dispose() // a hot reload of the creating plugin, racing the create
      log.push(`after dispose live=${ctx.sessions.get(s.id) === s}`)
    })
    ctx.on('session/created', (s) => void log.push(`second listener live=${ctx.sessions.get(s.id) === s}`))
    ctx.on('session/disposed', (s) => void log.push(`disposed ${s.id}`))
    let session: Session | undefined
    ctx.plugin({
      inject: ['sessions'],
      apply: (inner: Context) => {
        owner = inner.scope as ForkScope
        session = inner.sessions.create('raced')
      },
    })
    expect(owner?.uid).toBeNull() // the creating plugin is gone
    expect(session?.id).toBe('raced')
    expect(log).toEqual(['created raced', 'after dispose live=true', 'second listener live=true', 'disposed raced'])
    expect(ctx.sessions.get('raced')).toBeUndefined()
    expect(ctx.sessions.list()).toEqual([])
    expect(() => session!.append('turn/start', { turn: 1 })).not.toThrow() // detached: nothing is published
    expect(log).toHaveLength(4)
    // the id is free again: a reloaded plugin can create it anew
    owner = undefined
    const again = ctx.sessions.create('raced')
    expect(ctx.sessions.get('raced')).toBe(again)
  })

  it('get / list follow insertion order and list() is a fresh array', () => {
    const ctx = setup()
    const a = ctx.sessions.create('b')
    const b = ctx.sessions.create('a')
    const list = ctx.sessions.list()
    expect(list).toEqual([a, b])
    expect(ctx.sessions.list()).not.toBe(list)
    expect(ctx.sessions.get('a')).toBe(b)
    expect(ctx.sessions.get('zzz')).toBeUndefined()
  })

  it('only announced entries emit session/disposed', () => {
    const ctx = setup()
    const disposed: string[] = []
    ctx.on('session/disposed', (s) => void disposed.push(s.id))
    const detach = ctx.sessions.enter(ctx.sessions.prepare('quiet'))
    detach()
    expect(disposed).toEqual([])
  })
})

describe('session/event publication', () => {
  it('observers run in order and already see the committed event', () => {
    const ctx = setup()
    const seen: string[] = []
    ctx.on('session/event', (s, e) => {
      expect(s.events.at(-1)).toBe(e)
      seen.push(`1:${e.seq}`)
    })
    ctx.on('session/event', (_s, e) => void seen.push(`2:${e.seq}`))
    const s = ctx.sessions.create('a')
    const e = s.append('turn/start', { turn: 1 })
    expect(seen).toEqual(['1:0', '2:0'])
    expect(e).toBe(s.events[0])
  })

  it('a detached or unpublished session dispatches nothing', () => {
    const ctx = setup()
    const seen: number[] = []
    ctx.on('session/event', (_s, e) => void seen.push(e.seq))
    const s = ctx.sessions.prepare('a')
    s.append('turn/start', { turn: 1 })
    expect(seen).toEqual([])
  })

  it('observer failures are logged and do not affect the append; a re-entrant append is contained', async () => {
    const ctx = setup()
    let reentrant: unknown
    ctx.on('session/event', () => {
      throw new Error('sync boom')
    })
    ctx.on('session/event', () => Promise.reject(new Error('async boom')) as never)
    ctx.on('session/event', (s, e) => {
      if (e.seq === 0) {
        try {
          s.append('turn/end', { turn: 1, reason: { kind: 'completed' } })
        } catch (err) {
          reentrant = err
          throw err
        }
      }
    })
    const s = ctx.sessions.create('a')
    expect(s.append('turn/start', { turn: 1 }).seq).toBe(0)
    expect(s.events).toHaveLength(1)
    expect((reentrant as Error).message).toBe('session append cannot reenter while another append is being published')
    await flushMicrotasks()
    expect(warnings).toContain('session "a": session/event listener threw: Error: sync boom')
    expect(warnings).toContain('session "a": session/event listener rejected: Error: async boom')
    expect(warnings).toContain(
      'session "a": session/event listener threw: Error: session append cannot reenter while another append is being published',
    )
    // the guard is released afterwards
    expect(s.append('turn/end', { turn: 1, reason: { kind: 'completed' } }).seq).toBe(1)
  })

  it('a throw while resolving listeners (internal/event) vetoes: nothing committed, no observer runs', () => {
    const ctx = setup()
    const seen: number[] = []
    let veto = true
    ctx.on('internal/event', (_type, name) => {
      if (name === 'session/event' && veto) throw new Error('vetoed')
    })
    ctx.on('session/event', (_s, e) => void seen.push(e.seq))
    const s = ctx.sessions.create('a')
    expect(() => s.append('turn/start', { turn: 1 })).toThrow('vetoed')
    expect(s.events).toHaveLength(0)
    expect(s.deriveMessages()).toHaveLength(0)
    expect(seen).toEqual([])
    veto = false
    expect(s.append('turn/start', { turn: 1 }).seq).toBe(0)
    expect(seen).toEqual([0])
  })

  it('internal/event carries the session’s carrier', () => {
    const ctx = setup()
    const calls: unknown[][] = []
    ctx.on('internal/event', (type, name, args, thisArg) => {
      if (name === 'session/event') calls.push([type, args, thisArg])
    })
    const s = ctx.sessions.create('a')
    const e = s.append('turn/start', { turn: 1 })
    expect(calls).toHaveLength(1)
    expect(calls[0]![0]).toBe('emit')
    expect(calls[0]![1]).toEqual([s, e])
    expect(calls[0]![2]).toBeTypeOf('object')
  })

  it('detaching during an append is deferred until the publication unwinds', () => {
    const ctx = setup()
    const log: string[] = []
    let detach!: () => void
    ctx.on('session/event', (s) => {
      detach()
      log.push(`observer sees live=${ctx.sessions.get(s.id) === s}`)
    })
    ctx.on('session/event', () => void log.push('second observer'))
    ctx.on('session/disposed', () => void log.push('disposed'))
    const s = ctx.sessions.prepare('a')
    detach = ctx.sessions.enter(s)
    ctx.sessions.announce(s)
    s.append('turn/start', { turn: 1 })
    expect(log).toEqual(['observer sees live=true', 'second observer', 'disposed'])
    expect(ctx.sessions.get('a')).toBeUndefined()
  })

  it('detaching during announce is deferred until it unwinds', () => {
    const ctx = setup()
    const log: string[] = []
    let detach!: () => void
    ctx.on('session/created', (s) => {
      detach()
      log.push(`created live=${ctx.sessions.get(s.id) === s}`)
    })
    ctx.on('session/disposed', () => void log.push('disposed'))
    const s = ctx.sessions.prepare('a')
    detach = ctx.sessions.enter(s)
    ctx.sessions.announce(s)
    expect(log).toEqual(['created live=true', 'disposed'])
  })

  it('session/disposed failures are logged, never thrown', async () => {
    const ctx = setup()
    ctx.on('session/disposed', () => {
      throw new Error('d1')
    })
    ctx.on('session/disposed', () => Promise.reject(new Error('d2')) as never)
    const fork = ctx.plugin({ inject: ['sessions'], apply: (inner: Context) => void inner.sessions.create('a') })
    expect(() => fork.dispose()).not.toThrow()
    ctx.on('internal/event', (_t, name) => {
      if (name === 'session/disposed') throw new Error('d3')
    })
    const b = ctx.plugin({ inject: ['sessions'], apply: (inner: Context) => void inner.sessions.create('b') })
    expect(() => b.dispose()).not.toThrow()
    await flushMicrotasks()
    expect(warnings).toContain('session "a": session/disposed listener threw: Error: d1')
    expect(warnings).toContain('session "a": session/disposed listener rejected: Error: d2')
    expect(warnings).toContain('session "b": session/disposed dispatch threw: Error: d3')
  })
})

describe('scope filtering', () => {
  it('untagged listeners hear every session; scoped listeners hear only sessions entered through their scope or a descendant', () => {
    const ctx = setup()
    const parentKey = {}
    const childKey = {}
    const otherKey = {}
    const parent = createScope(ctx, parentKey)
    const child = createScope(parent.ctx, childKey, { parent: parentKey })
    const other = createScope(ctx, otherKey)
    const heard: string[] = []
    ctx.on('session/event', (s) => void heard.push(`untagged:${s.id}`))
    parent.ctx.on('session/event', (s) => void heard.push(`parent:${s.id}`))
    child.ctx.on('session/event', (s) => void heard.push(`child:${s.id}`))
    other.ctx.on('session/event', (s) => void heard.push(`other:${s.id}`))
    const root = ctx.sessions.create('root')
    const viaChild = child.ctx.sessions.create('viaChild')
    const viaParent = parent.ctx.sessions.create('viaParent')
    for (const s of [root, viaChild, viaParent]) s.append('turn/start', { turn: 1 })
    expect(heard).toEqual([
      'untagged:root',
      'untagged:viaChild',
      'parent:viaChild',
      'child:viaChild',
      'untagged:viaParent',
      'parent:viaParent',
    ])
  })

  it('session/created, session/flush and session/disposed are filtered the same way', async () => {
    const ctx = setup()
    const key = {}
    const scope = createScope(ctx, key)
    const heard: string[] = []
    scope.ctx.on('session/created', (s) => void heard.push(`created:${s.id}`))
    scope.ctx.on('session/flush', (s) => void heard.push(`flush:${s.id}`))
    scope.ctx.on('session/disposed', (s) => void heard.push(`disposed:${s.id}`))
    const outside = ctx.plugin({
      inject: ['sessions'],
      apply: (inner: Context) => void inner.sessions.create('outside'),
    })
    const inside = scope.ctx.plugin({
      inject: ['sessions'],
      apply: (inner: Context) => void inner.sessions.create('inside'),
    })
    expect(await ctx.sessions.flush(ctx.sessions.get('outside')!)).toBe(false)
    expect(await ctx.sessions.flush(ctx.sessions.get('inside')!)).toBe(true)
    outside.dispose()
    inside.dispose()
    expect(heard).toEqual(['created:inside', 'flush:inside', 'disposed:inside'])
  })
})

describe('SessionStore.flush', () => {
  it('rejects for a session that is not the live entry', async () => {
    const ctx = setup()
    await expect(ctx.sessions.flush(Session.create('ghost'))).rejects.toThrow(
      'session "ghost" is not live in this store',
    )
    ctx.sessions.create('x')
    await expect(ctx.sessions.flush(Session.create('x'))).rejects.toThrow('session "x" is not live in this store')
  })

  it('resolves false without listeners, true with; an entered (unannounced) session is enough', async () => {
    const ctx = setup()
    const s = ctx.sessions.prepare('a')
    ctx.sessions.enter(s)
    expect(await ctx.sessions.flush(s)).toBe(false)
    ctx.on('session/flush', () => {})
    expect(await ctx.sessions.flush(s)).toBe(true)
  })

  it('is a barrier: waits for every listener, then rejects with the first failure in registration order', async () => {
    const ctx = setup()
    const settled: string[] = []
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    ctx.on('session/flush', async () => {
      await gate
      settled.push('slow')
      throw new Error('first')
    })
    ctx.on('session/flush', () => {
      settled.push('sync throw')
      throw new Error('second')
    })
    ctx.on('session/flush', async () => void settled.push('ok'))
    const s = ctx.sessions.create('a')
    const result = ctx.sessions.flush(s)
    let done = false
    void result.catch(() => (done = true))
    await flushMicrotasks()
    expect(done).toBe(false)
    release()
    await expect(result).rejects.toThrow('first')
    expect(settled).toEqual(['sync throw', 'ok', 'slow'])
  })
})

describe('ctx.sessions.branch', () => {
  function withTurns(ctx: Context) {
    const s = ctx.sessions.create('src', { meta: { cwd: '/work' } })
    s.append('turn/start', { turn: 1 }) // 0
    s.append('user/message', user('a'), { surfaceOp: 'append' }) // 1
    s.append('turn/end', { turn: 1, reason: { kind: 'completed' } }) // 2
    s.append('todo/write', { todos: [] }) // 3
    s.append('turn/start', { turn: 2 }) // 4
    s.append('user/message', user('b'), { surfaceOp: 'append' }) // 5
    return s
  }

  const codeOf = (fn: () => unknown) => {
    try {
      fn()
    } catch (e) {
      return [(e as Error).name, (e as { code?: string }).code, (e as Error).message]
    }
    return undefined
  }

  it('checks in order, each a SessionForkError with a code', () => {
    const ctx = setup()
    const s = withTurns(ctx)
    ctx.sessions.create('taken')
    expect(codeOf(() => ctx.sessions.branch('missing', -1, 'taken'))).toEqual([
      'SessionForkError',
      'SESSION_ALREADY_EXISTS',
      'session "taken" already exists',
    ])
    expect(codeOf(() => ctx.sessions.branch('missing'))).toEqual([
      'SessionForkError',
      'SESSION_NOT_FOUND',
      'session "missing" not found',
    ])
    expect(codeOf(() => ctx.sessions.branch(Session.create('src')))).toEqual([
      'SessionForkError',
      'SESSION_NOT_LIVE',
      'session "src" is not the live store instance',
    ])
    expect(codeOf(() => ctx.sessions.branch(s, -1))).toEqual([
      'SessionForkError',
      'INVALID_BOUNDARY',
      'fork boundary for session "src" must be a non-negative safe integer, got -1',
    ])
    expect(codeOf(() => ctx.sessions.branch(s, 1.5))?.[2]).toBe(
      'fork boundary for session "src" must be a non-negative safe integer, got 1.5',
    )
    expect(codeOf(() => ctx.sessions.branch(s, 6))).toEqual([
      'SessionForkError',
      'INVALID_BOUNDARY',
      'fork boundary 6 does not exist in session "src" (last seq: 5)',
    ])
    expect(codeOf(() => ctx.sessions.branch(ctx.sessions.create('empty'), 0))?.[2]).toBe(
      'fork boundary 0 does not exist in session "empty" (last seq: none)',
    )
    expect(codeOf(() => ctx.sessions.branch(s, 1))).toEqual([
      'SessionForkError',
      'OPEN_TURN',
      'fork boundary 1 in session "src" ends inside open turn 1',
    ])
    expect(codeOf(() => ctx.sessions.branch(s))).toEqual([
      'SessionForkError',
      'OPEN_TURN',
      'fork boundary 5 in session "src" ends inside open turn 2',
    ])
  })

  it('example 6: forking at a turn/end gives a detached copy of the prefix plus the end-seed marker', () => {
    const ctx = setup()
    const s = withTurns(ctx)
    const child = ctx.sessions.branch(s, 3, 'child')
    expect(child.firstLiveSeq).toBe(4)
    expect(child.events.map((e) => e.type)).toEqual([
      'turn/start',
      'user/message',
      'turn/end',
      'todo/write',
      'session/end-seed',
    ])
    expect(child.events[1]).toEqual(s.events[1])
    expect(child.events[1]).not.toBe(s.events[1])
    expect(child.header).toMatchObject({ id: 'child', cwd: '/work', parentSession: 'src', seedLength: 4 })
    expect(ctx.sessions.get('child')).toBe(child)
    expect(child.deriveMessages()).toEqual([s.events[1]!.data])
    const atEnd = ctx.sessions.branch('src', 2)
    expect(atEnd.id).toMatch(/^session-\d+$/)
    expect(atEnd.header.seedLength).toBe(3)
  })

  it('an empty source with the default boundary gives an empty seed', () => {
    const ctx = setup()
    ctx.sessions.create('empty')
    const child = ctx.sessions.branch('empty', undefined, 'kid')
    expect(child.events.map((e: AnySessionEvent) => e.type)).toEqual(['session/end-seed'])
    expect(child.header.seedLength).toBe(0)
    expect(child.header.cwd).toBeUndefined()
  })
})

describe('SessionStore teardown', () => {
  it('unloading the store detaches every session and announces the disposal', () => {
    const ctx = new Context()
    const fork = ctx.plugin(SessionStore)
    const disposed: string[] = []
    ctx.on('session/disposed', (s) => void disposed.push(s.id))
    const s = ctx.sessions.create('a')
    fork.dispose()
    expect(disposed).toEqual(['a'])
    expect(ctx.sessions).toBeUndefined()
    // the session is no longer attached, so another store may take it
    const other = setup()
    expect(() => other.sessions.enter(s)).not.toThrow()
  })
})
