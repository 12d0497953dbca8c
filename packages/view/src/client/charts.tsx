import * as Plot from '@observablehq/plot'
import { useEffect, useRef } from 'preact/hooks'
import type { RequestRow } from '../types.js'
import { requestLabel } from './format.js'

/** Mounts a chart the library draws (an SVG figure) and redraws it when `rows` change. */
function Figure({ draw, rows, label }: { draw: (width: number) => Element; rows: unknown; label: string }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const host = ref.current
    if (!host) return
    const figure = draw(Math.max(320, Math.min(host.clientWidth || 720, 1100)))
    host.replaceChildren(figure)
    return () => figure.remove()
  }, [rows])
  return <div class="chart" ref={ref} role="img" aria-label={label} />
}

/** At most ~24 tick labels on an ordinal axis, so long sessions stay legible. */
function thinTicks(labels: string[]): string[] {
  const every = Math.max(1, Math.ceil(labels.length / 24))
  return labels.filter((_, i) => i % every === 0)
}

/** The x axis both charts share: one band per request, labelled turn.step, tilted when crowded. */
function requestAxis(labels: string[]) {
  return {
    domain: labels,
    ticks: thinTicks(labels),
    label: 'request (turn.step)',
    tickRotate: labels.length > 12 ? -45 : 0,
  }
}

const KINDS = ['input (not cached)', 'cached input', 'output'] as const

/** Tokens per request as the provider reported them: uncached input, cached input and output, stacked. */
export function TokensChart({ requests }: { requests: RequestRow[] }) {
  const reported = requests.filter((r) => r.usage !== undefined)
  if (reported.length === 0)
    return <p class="muted chart-empty">No request reported token usage (the provider sent none).</p>
  const rows = reported.flatMap((r) => {
    const label = requestLabel(r)
    const u = r.usage!
    return [
      { label, kind: KINDS[0], tokens: u.input },
      { label, kind: KINDS[1], tokens: u.cached },
      { label, kind: KINDS[2], tokens: u.output },
    ]
  })
  const labels = reported.map(requestLabel)
  return (
    <Figure
      rows={rows}
      label={`tokens per request, ${reported.length} requests`}
      draw={(width) =>
        Plot.plot({
          width,
          height: 240,
          marginLeft: 56,
          x: requestAxis(labels),
          y: { grid: true, label: 'tokens' },
          color: { domain: [...KINDS], range: ['#4e79a7', '#59a14f', '#f28e2b'], legend: true },
          marks: [
            Plot.barY(rows, {
              x: 'label',
              y: 'tokens',
              fill: 'kind',
              ariaLabel: 'tokens',
              title: (d: (typeof rows)[number]) => `${d.label}: ${d.tokens} ${d.kind}`,
            }),
            Plot.ruleY([0]),
          ],
        })
      }
    />
  )
}

/** The prefix chart's point colors: a prompt that kept the previous one, and one where the cache prefix broke. */
const HELD = '#4e79a7'
const BROKE = '#e15759'

/** Per request, the share of its prompt that repeats the previous request's prompt byte for byte. */
export function PrefixChart({ requests }: { requests: RequestRow[] }) {
  const points = requests
    .filter((r) => r.prefixShare !== undefined)
    .map((r) => ({ label: requestLabel(r), share: r.prefixShare! * 100, cause: r.breakCause }))
  if (points.length === 0) return <p class="muted chart-empty">Only one request so far: nothing to compare with.</p>
  const labels = points.map((p) => p.label)
  return (
    <>
      <Figure
        rows={points}
        label={`share of the prompt kept from the previous request, ${points.length} requests`}
        draw={(width) =>
          Plot.plot({
            width,
            height: 200,
            marginLeft: 56,
            x: requestAxis(labels),
            y: { domain: [0, 100], grid: true, label: 'prompt kept (%)' },
            marks: [
              Plot.lineY(points, { x: 'label', y: 'share', stroke: '#4e79a7' }),
              Plot.dot(points, {
                x: 'label',
                y: 'share',
                ariaLabel: 'prefix kept',
                fill: (d: (typeof points)[number]) => (d.cause ? BROKE : HELD),
                r: 4,
                title: (d: (typeof points)[number]) =>
                  `${d.label}: ${d.share.toFixed(1)}% kept${d.cause ? ` — ${d.cause}` : ''}`,
              }),
            ],
          })
        }
      />
      <p class="legend" data-legend="prefix">
        <span>
          <span class="swatch" style={{ background: HELD }} />
          prefix held: the previous prompt repeats in full
        </span>
        <span>
          <span class="swatch" style={{ background: BROKE }} />
          prefix broke: hover a point for why
        </span>
      </p>
    </>
  )
}
