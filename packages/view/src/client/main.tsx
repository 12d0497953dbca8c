import { render } from 'preact'
import type { EmbeddedData } from '../types.js'
import { embeddedSource, serverSource, type DataSource } from './data.js'
import { RequestPage } from './pages/request.js'
import { SessionPage } from './pages/session.js'
import { SessionsPage } from './pages/sessions.js'
import { useRoute } from './router.js'
import './style.css'

function App({ data }: { data: DataSource }) {
  const route = useRoute()
  return (
    <>
      <header class="top">
        <a href="#/" class="brand">
          bridle view
        </a>
        <span class="muted">{data.mode === 'file' ? 'a saved session (read-only file)' : 'read-only'}</span>
      </header>
      {route.page === 'request' ? (
        <RequestPage key={`${route.id}:${route.seq}`} data={data} id={route.id} seq={route.seq} />
      ) : route.page === 'session' ? (
        <SessionPage key={route.id} data={data} id={route.id} />
      ) : (
        <SessionsPage data={data} />
      )}
    </>
  )
}

// An --html file carries its data in a JSON block; the served page asks the server.
const embedded = document.getElementById('bridle-data')
const saved = embedded ? (JSON.parse(embedded.textContent ?? '{}') as EmbeddedData) : undefined
const data = saved ? embeddedSource(saved) : serverSource()
// a file opens on its session
if (saved && location.hash === '')
  history.replaceState(null, '', `#/session/${encodeURIComponent(saved.session.summary.id)}`)
render(<App data={data} />, document.getElementById('app')!)
