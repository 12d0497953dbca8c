import { configuredPlugin } from '@bridle/llm'
import { onUntraced } from '@bridle/scope'
import type { Session, SessionEvent } from '@bridle/session'
import type { TracerProvider } from '@opentelemetry/api'
import type { Context } from 'cordis'
import type { FoldContext } from './chat-span.js'
import { Config, type OtelConfig, type OtelConfigInput } from './config.js'
import { TRACER_NAME, TRACER_VERSION } from './instrumentation.js'
import { tracerProviderFromEnv } from './provider.js'
import { LiveSession } from './live-session.js'
import { TracerSink } from './tracer-sink.js'

/** The values to redact: the configured ones and those of the configured environment variables, as set now. */
export function secretsOf(config: Pick<OtelConfig, 'secrets' | 'secretEnv'>, env = process.env): string[] {
  return [...config.secrets, ...config.secretEnv.flatMap((name) => (env[name] ? [env[name]] : []))]
}

/**
 * `@bridle/otel`: OpenTelemetry GenAI spans for every turn, model request and tool call of every session it hears,
 * made from the session log as events are appended (`session/event`), with the events' recorded times (README,
 * "The span tree"). Load it with `ctx.plugin(OtelTracing, config)`; loaded through an agent's `agent.ctx` it traces
 * that agent only. A session it first hears mid-log (a resumed one, or any when the plugin loads late) is caught up
 * from its log without spans, and a turn already running then is not traced. Unloading it ends the spans of
 * unfinished turns (`bridle.unfinished: 'unloaded'`), removes its listeners and shuts down a provider it built.
 */
export class OtelTracing extends configuredPlugin(Config) {
  /** The provider spans go to: the configured one, or the one built from the environment. */
  readonly tracerProvider: TracerProvider
  /**
   * Settles once the plugin has unloaded and a provider it built has shut down (its last spans exported or their
   * export failed, which is logged). Cordis does not wait for it; an app that exits right after unloading can.
   */
  readonly stopped: Promise<void>
  private readonly sink: TracerSink
  /** The sessions heard, each with its live fold; `null` for one whose tracing stopped. */
  private readonly sessions = new Map<Session, LiveSession | null>()
  private readonly redaction: FoldContext['redaction']

  constructor(ctx: Context, config?: OtelConfigInput | null) {
    super(ctx, config)
    const logger = ctx.logger('otel')
    const { tracerProvider, exporter, serviceName } = this.config
    const owned =
      tracerProvider === undefined
        ? tracerProviderFromEnv({ ...(exporter ? { exporters: [exporter] } : {}), serviceName })
        : undefined
    this.tracerProvider = tracerProvider ?? owned!
    this.sink = new TracerSink(this.tracerProvider.getTracer(TRACER_NAME, TRACER_VERSION))
    this.redaction = { secrets: secretsOf(this.config) }

    const warn = (session: Session, error: unknown) =>
      logger.warn(`session "${session.id}": tracing stopped: ${error instanceof Error ? error.message : error}`)
    // untraced: the arguments are plain data, and cordis's per-call tracing would cost more than the fold itself
    onUntraced(ctx, 'session/event', (session: Session, event: SessionEvent) => {
      try {
        this.observe(session, event)
      } catch (error) {
        // a fold that failed once cannot be trusted with the rest of this log: stop tracing the session
        this.sessions.set(session, null)
        warn(session, error)
      }
    })
    const finish = (session: Session, live: LiveSession | null | undefined, reason: 'disposed' | 'unloaded') => {
      try {
        live?.finish(reason, this.sink)
      } catch (error) {
        warn(session, error)
      }
    }
    onUntraced(ctx, 'session/disposed', (session: Session) => {
      finish(session, this.sessions.get(session), 'disposed')
      this.sessions.delete(session)
    })
    let stop!: () => void
    this.stopped = new Promise<void>((resolve) => (stop = resolve))
    ctx.effect(() => () => {
      for (const [session, live] of this.sessions) finish(session, live, 'unloaded')
      this.sessions.clear()
      if (owned === undefined) return stop()
      owned
        .shutdown()
        .catch((error: unknown) => {
          logger.warn(`shutting down the tracer provider failed: ${error instanceof Error ? error.message : error}`)
        })
        .finally(stop)
    })
  }

  private observe(session: Session, event: SessionEvent): void {
    let live = this.sessions.get(session)
    if (live === null) return
    if (live === undefined) {
      const context = { sessionId: session.id, redaction: this.redaction, content: this.config.captureContent }
      live = new LiveSession(context, session.events, event)
      this.sessions.set(session, live)
    }
    live.hear(event, this.sink)
  }
}
