/**
 * What the peers (the scripts people write instead of timeline-sheets) share:
 * the Timeline reads a script does with plain `fetch` — sign in with the
 * password flow, list the Tags timelines, read each one's activities for the
 * window, one after another — the rows it makes of them, and the same
 * googleapis client the tool uses. Modelled on such scripts and on n8n's
 * Google Sheets node, never on src: a peer must not get faster or slower
 * because the tool changed.
 */
import { sheets, type sheets_v4 } from '@googleapis/sheets'
import { OAuth2Client } from 'google-auth-library'

export interface PeerOptions {
  /** The reference server's address (`http://127.0.0.1:PORT/`); the API is under `api`. */
  timelineUrl: string
  username: string
  password: string
  /** The Sheets fake's root URL. */
  rootUrl: string
  token: string
  spreadsheetId: string
  /** The window, `[from, to)`, as dates (UTC): the same days the tool's window covers. */
  from: string
  to: string
  /** @default 'Activities' */
  tab?: string
}

/** One Tags activity as a script keeps it. */
export interface PeerActivity {
  key: string
  user: string
  start: string
  /** Seconds. */
  duration: number
  tags: string
  notes: string
}

/** The columns a script writes: what a person reads, and a Key to find the row again. */
export const HEADER = ['User', 'Date', 'Start', 'End', 'Minutes', 'Tags', 'Notes', 'Key'] as const
export const KEY_COLUMN = HEADER.indexOf('Key')

/** Google refuses request bodies over 10 MiB; a script keeps each under this. */
export const MAX_BODY_BYTES = 9_500_000

const MEDIA = 'application/vnd.manictime.v3+json'

/** What the Timeline side cost: requests sent and response bytes read. */
export interface TimelineCost {
  requests: number
  bytes: number
}

export interface TimelineRead {
  activities: PeerActivity[]
  timelines: number
  cost: TimelineCost
}

/**
 * Every Tags activity overlapping the window, timeline by timeline, as a
 * typical script reads them: one request per timeline over the whole window,
 * and only if the server refuses that (a 4xx other than 401/403/404), one
 * request per week.
 */
export async function readActivities(options: PeerOptions): Promise<TimelineRead> {
  const cost: TimelineCost = { requests: 0, bytes: 0 }
  const api = new URL('api', options.timelineUrl).href
  const get = async (url: string, headers: Record<string, string>): Promise<Response> => {
    cost.requests++
    return fetch(url, { headers: { accept: MEDIA, ...headers } })
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a peer script reads JSON as a script written by hand does
  const json = async (response: Response): Promise<any> => {
    const text = await response.text()
    cost.bytes += Buffer.byteLength(text)
    if (!response.ok) throw new Error(`${response.url}: ${response.status} ${text.slice(0, 200)}`)
    return JSON.parse(text)
  }

  // Sign in: the 401 names the token endpoint.
  const challenge = await get(api, {})
  const links = ((await challenge.json().catch(() => ({}))) as { links?: { rel: string; href: string }[] }).links ?? []
  const tokenUrl = links.find((l) => l.rel.endsWith('/token'))?.href
  if (challenge.status !== 401 || !tokenUrl) throw new Error(`${api}: expected a 401 naming the token endpoint, got ${challenge.status}`)
  cost.requests++
  const tokenResponse = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: MEDIA },
    body: new URLSearchParams({ grant_type: 'password', username: options.username, password: options.password }),
  })
  const { token } = (await json(tokenResponse)) as { token: string }
  const auth = { authorization: `Bearer ${token}` }

  const list = (await json(await get(`${api}/timelines`, auth))) as {
    timelines: { timelineKey: string; owner: { username: string }; schema: { name: string } }[]
  }
  const tags = list.timelines.filter((t) => t.schema.name.endsWith('/Tags'))
  const activities: PeerActivity[] = []
  for (const timeline of tags) {
    const url = (from: string, to: string) => `${api}/timelines/${timeline.timelineKey}/activities?fromTime=${from}&toTime=${to}`
    const whole = await get(url(options.from, options.to), auth)
    const refused = whole.status >= 400 && whole.status < 500 && ![401, 403, 404].includes(whole.status)
    const answers = refused ? [] : [await json(whole)]
    if (refused) {
      await whole.body?.cancel()
      for (const [from, to] of weeks(options.from, options.to)) answers.push(await json(await get(url(from, to), auth)))
    }
    const seen = new Set<number>()
    for (const answer of answers) {
      for (const entity of answer.entities as {
        entityType: string
        entityId: number
        values: { timeInterval: { start: string; duration: number }; name?: string; notes?: string }
      }[]) {
        if (entity.entityType !== 'activity' || seen.has(entity.entityId)) continue
        seen.add(entity.entityId)
        const v = entity.values
        activities.push({
          key: `${timeline.timelineKey}/${entity.entityId}`,
          user: timeline.owner.username,
          start: v.timeInterval.start,
          duration: v.timeInterval.duration,
          tags: v.name ?? '',
          notes: v.notes ?? '',
        })
      }
    }
  }
  return { activities, timelines: tags.length, cost }
}

/** `[from, to)` in steps of 7 days, as dates. */
function weeks(from: string, to: string): [string, string][] {
  const out: [string, string][] = []
  const end = Date.parse(`${to}T00:00:00Z`)
  for (let at = Date.parse(`${from}T00:00:00Z`); at < end; at += 7 * 86_400_000) {
    out.push([new Date(at).toISOString().slice(0, 10), new Date(Math.min(end, at + 7 * 86_400_000)).toISOString().slice(0, 10)])
  }
  return out
}

/** The row a script writes for an activity, in UTC: text a person reads, minutes as a number. */
export function toRow(a: PeerActivity): (string | number)[] {
  const start = new Date(a.start)
  const end = new Date(start.getTime() + a.duration * 1000)
  const iso = start.toISOString()
  return [a.user, iso.slice(0, 10), iso.slice(11, 16), end.toISOString().slice(11, 16), Math.round(a.duration / 60), a.tags, a.notes, a.key]
}

/** The googleapis Sheets client on a fixed access token, as the fake is reached. */
export function sheetsApi(options: PeerOptions): sheets_v4.Sheets {
  const auth = new OAuth2Client()
  auth.setCredentials({ access_token: options.token, token_type: 'Bearer' })
  return sheets({ version: 'v4', auth, rootUrl: options.rootUrl })
}

/** Splits rows into runs whose JSON stays under `maxBytes`, each with the index of its first row. */
export function chunksUnder<T>(rows: T[], maxBytes: number): { first: number; rows: T[] }[] {
  const out: { first: number; rows: T[] }[] = []
  let current: T[] = []
  let first = 0
  let bytes = 0
  rows.forEach((row, i) => {
    const size = Buffer.byteLength(JSON.stringify(row)) + 1
    if (current.length > 0 && bytes + size > maxBytes) {
      out.push({ first, rows: current })
      current = []
      bytes = 0
      first = i
    }
    current.push(row)
    bytes += size
  })
  if (current.length > 0) out.push({ first, rows: current })
  return out
}

/** `A`…`Z` for a 0-based column. */
export function columnLetter(index: number): string {
  return String.fromCharCode(65 + index)
}

/** Quotes a tab title for A1 notation. */
export function quoted(tab: string): string {
  return `'${tab.replace(/'/g, "''")}'`
}
