import { render } from 'preact'
import type { EmbeddedData } from '../types.js'
import { embeddedSource, serverSource, type DataSource } from './data.js'
import { homeWays, NotFound } from './components.js'
import { RequestRoute } from './pages/request.js'
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
        <RequestRoute key={`${route.id}:${'label' in route ? route.label : route.seq}`} data={data} route={route} />
      ) : route.page === 'session' ? (
        <SessionPage key={route.id} data={data} id={route.id} />
      ) : route.page === 'not-found' ? (
        <NotFound title="No such page" detail={`The viewer has no page at #${route.path}.`} ways={homeWays(data)} />
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
