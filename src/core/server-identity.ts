/**
 * Whether a target's state was built from the server and account a run signs in to. Cursors, bases and
 * Keys (`timelineKey/entityId`) are the server's own numbers: used against another server they point at
 * other activities, or at none.
 */
export interface ServerAccount {
  /** The API entry (`https://host/api`, or the cloud profile's server URL). */
  entryUrl: string
  /** The account, where the configuration names it; Windows and server accounts compare without case. */
  account?: string | undefined
}

/** Two entry URLs differing only in case of scheme and host, a default port or a trailing slash are one server. */
export function sameServer(a: ServerAccount, b: ServerAccount): boolean {
  if (entryOf(a.entryUrl) !== entryOf(b.entryUrl)) return false
  if (a.account === undefined || b.account === undefined) return true
  return a.account.toLowerCase() === b.account.toLowerCase()
}

function entryOf(url: string): string {
  try {
    const u = new URL(url)
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`
  } catch {
    return url
  }
}

/** `https://host/api as alice`, for messages. */
export function describeServer(s: ServerAccount): string {
  return s.account ? `${s.entryUrl} as ${s.account}` : s.entryUrl
}
