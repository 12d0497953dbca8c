import type { DataSource } from '../data.js'
import { Failure, Loading, SessionVerified } from '../components.js'
import { count, stamp } from '../format.js'
import { useLive } from '../live.js'
import { sessionHref } from '../router.js'

/**
 * Every stored session, newest first (as `bridle sessions` lists them), with turns, last activity, whether every
 * request verifies, the model and the first prompt.
 */
export function SessionsPage({ data }: { data: DataSource }) {
  const loaded = useLive(
    data,
    'sessions',
    () => data.sessions(),
    (c) => c.kind === 'sessions',
  )
  if (loaded.state === 'loading') return <Loading />
  if (loaded.state === 'error') return <Failure title="Cannot list sessions" error={loaded.error} />
  const rows = loaded.value
  return (
    <main>
      <h1>Sessions</h1>
      {rows.length === 0 ? (
        <p class="muted">
          No sessions stored yet. Run <code>bridle run "…"</code> to make one.
        </p>
      ) : (
        <table class="sessions" data-version={loaded.version}>
          <thead>
            <tr>
              <th>session</th>
              <th>created (UTC)</th>
              <th>last activity (UTC)</th>
              <th class="num">turns</th>
              <th class="num">requests</th>
              <th>verified</th>
              <th>model</th>
              <th>first prompt</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} data-session={row.id}>
                <td>
                  <a href={sessionHref(row.id)}>{row.id}</a>
                </td>
                <td>{stamp(row.createdAt)}</td>
                <td>{stamp(row.lastActivity)}</td>
                <td class="num">{count(row.turns)}</td>
                <td class="num">{count(row.requests)}</td>
                <td>
                  {row.error ? (
                    <span class="bad" title={row.error}>
                      ✗ unreadable: {row.error}
                    </span>
                  ) : (
                    <SessionVerified state={row.verify} />
                  )}
                </td>
                <td>{row.model ?? <span class="muted">–</span>}</td>
                <td class="first-prompt" title={row.firstPrompt}>
                  {row.firstPrompt ?? <span class="muted">–</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  )
}
