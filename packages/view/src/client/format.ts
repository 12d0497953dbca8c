/** `YYYY-MM-DD HH:MM:SS` UTC: sortable and the same on every machine (the CLI prints the same). */
export const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

export const count = (n: number) => n.toLocaleString('en-US')

export const percent = (share: number) => `${(share * 100).toFixed(share > 0 && share < 0.1 ? 1 : 0)}%`

export const duration = (ms: number | undefined) =>
  ms === undefined ? '–' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`

/** The label of a request on pages, charts and in its URL: `turn.step`, with `.attempt` for a retry (`3.1.2`). */
export const requestLabel = (r: { turn: number; step: number; attempt: number }) =>
  `${r.turn}.${r.step}${r.attempt > 1 ? `.${r.attempt}` : ''}`

export const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? '' : 's'}`
