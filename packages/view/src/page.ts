import { createHash } from 'node:crypto'
import type { ViewerAssets } from './assets.js'
import type { EmbeddedData } from './types.js'

/**
 * The served page's policy: its own script and styles only, data from its own origin, no frames, forms, plugins or
 * base rewrites. Inline style attributes stay allowed because the chart library styles the SVG it draws; no
 * inline script runs.
 */
export const SERVER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`

/** A file's policy: exactly its one inline script (by hash), its styles, and no network at all. */
export function fileCsp(script: string): string {
  return [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ')
}

/** JSON that is safe inside a `<script>` element: no `<`, `>` or `&` can close it or start markup. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** A script body that cannot end its `<script>` element early. */
const inlineScript = (code: string) => code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--')

const shell = (head: string, body: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>bridle view</title>
${head}
</head>
<body>
<div id="app"></div>
${body}
</body>
</html>
`

/** The page `bridle view` serves: the client bundle from `/assets`, data from `/api`. */
export function serverPage(): string {
  return shell('<link rel="stylesheet" href="/assets/viewer.css">', '<script src="/assets/viewer.js"></script>')
}

/**
 * One self-contained HTML document showing one session: the client bundle and the data inline, a policy that lets
 * nothing load from anywhere, so it opens from disk (or an attachment) with no server.
 */
export function filePage(
  assets: ViewerAssets,
  data: EmbeddedData,
  redact: (text: string) => string = (text) => text,
): string {
  const script = inlineScript(assets.script)
  const head = [
    `<meta http-equiv="Content-Security-Policy" content="${fileCsp(script)}">`,
    `<style>${assets.style.replace(/<\/(style)/gi, '<\\/$1')}</style>`,
  ].join('\n')
  const body = [
    `<script type="application/json" id="bridle-data">${redact(scriptSafeJson(data))}</script>`,
    `<script>${script}</script>`,
  ].join('\n')
  return shell(head, body)
}

/** `text` safe as HTML text: no markup can start in it. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The page a browser gets for an address the viewer has no page at: what was asked, and a way back. */
export function notFoundPage(path: string): string {
  return shell(
    '<link rel="stylesheet" href="/assets/viewer.css">',
    `<main class="not-found" data-not-found>
<h1>No such page</h1>
<p class="muted">The viewer has no page at ${escapeHtml(path)}.</p>
<ul class="ways"><li><a href="/">all sessions</a></li></ul>
</main>`,
  ).replace('<title>bridle view</title>', '<title>bridle view: no such page</title>')
}
