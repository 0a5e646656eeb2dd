/**
 * What approvals add to a nightly sync (issue 37: at most one Sheets request and 10 % of the wall time): one Google
 * target with `approvals` beside the same target without, each on its own spreadsheet and state, fed by the same
 * Timeline server, synced night after night, the two taking turns as to which goes first. The nights: the one that
 * adds the Approvals rows; the one that takes a manager's ticks (a third of the people's last four full weeks); then,
 * per rep, a night after 1 % changed on the server (approved weeks among them) and the night after, when the
 * import's Hours, Changed since and Status follow the export's rows and another slice of ticks is taken.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startHost } from '../lib/host-client.ts'
import { measure, type Sample } from '../lib/measure.ts'
import { goals, load, secs, table } from '../lib/report.ts'
import { runTool, writeToolConfig, type ToolConfig } from '../lib/tool-cli.ts'

export interface ApprovalsOptions {
  label: string
  users: number
  days: number
  startDate: string
  windowDays: number
  t0: number
  reps: number
  changeShare: number
}

const HOUR = 3_600_000
/** The last four full ISO weeks before the bench's `now` (2026-04-05, a Sunday, ends 2026-W14). */
const APPROVED_WEEKS = ['2026-W10', '2026-W11', '2026-W12', '2026-W13']
/** A third of the people's weeks ticked at first; another slice each rep. */
const EVERY = 3
/** A sync with approvals exits 3 when an approved week changed on the server (its rows say Conflict). */
const OK_CODES = [0, 3]

interface Night {
  kind: string
  plain: Sample
  approving: Sample
}

export async function approvals(options: ApprovalsOptions): Promise<void> {
  const loadStart = load()
  const host = startHost()
  const dir = await mkdtemp(path.join(tmpdir(), 'ts-bench-approvals-'))
  try {
    const timeline = await host.startTimeline({ users: options.users, days: options.days, startDate: options.startDate })
    const sheets = await host.startSheets()
    const world = async (name: string, withApprovals: boolean) => {
      const spreadsheetId = await host.call<string>('createSpreadsheet', { title: `approvals ${options.label} ${name}` })
      const config = await writeToolConfig({
        dir: path.join(dir, name),
        timelineUrl: timeline.url,
        username: timeline.username,
        password: timeline.password,
        rootUrl: sheets.rootUrl,
        token: sheets.token,
        windowDays: options.windowDays,
        targets: [
          { name: 'team', spreadsheet: { kind: 'google', spreadsheetId }, ...(withApprovals ? { approvals: { period: 'week' } } : {}) },
        ],
      })
      return { spreadsheetId, config }
    }
    const plain = await world('plain', false)
    const approving = await world('approving', true)
    let at = options.t0
    let turn = 0
    const nights: Night[] = []
    const night = async (kind: string): Promise<Night> => {
      at += HOUR
      const when = new Date(at)
      const context = { part: 'approvals', size: options.label, night: kind }
      const run = (who: string, config: ToolConfig) => measure(host, who, () => runTool(config, ['sync'], when), context, OK_CODES)
      // Taking turns as to which goes first, so a drift of the machine's speed hits both alike.
      const first = turn++ % 2 === 0
      const a = first ? await run('without approvals', plain.config) : await run('with approvals', approving.config)
      const b = first ? await run('with approvals', approving.config) : await run('without approvals', plain.config)
      const result = first ? { kind, plain: a, approving: b } : { kind, plain: b, approving: a }
      nights.push(result)
      return result
    }
    const tick = (offset: number) =>
      host.call<number>('approve', { spreadsheetId: approving.spreadsheetId, periods: APPROVED_WEEKS, every: EVERY, offset })

    await night('first sync (fills the sheet)')
    await night('adds the Approvals rows')
    const ticked = await tick(0)
    await night(`takes ${ticked} approvals`)
    for (let rep = 0; rep < options.reps; rep++) {
      await host.call('mutate', { share: options.changeShare, seed: 3700 + rep })
      await night(`${Math.round(options.changeShare * 100)} % changed on the server`)
      const more = await tick(rep + 1)
      await night(`the next night: Hours and Changed since follow, ${more} more approvals`)
    }

    const kinds = [...new Set(nights.map((n) => n.kind.replace(/\d+ (more )?approvals/, 'approvals')))]
    const rows = kinds.map((kind) => {
      const of = nights.filter((n) => n.kind.replace(/\d+ (more )?approvals/, 'approvals') === kind)
      const plainWall = median(of.map((n) => n.plain.wallMs))
      const approvingWall = median(of.map((n) => n.approving.wallMs))
      const ratio = median(of.map((n) => n.approving.wallMs / n.plain.wallMs))
      const extra = of.map((n) => requests(n.approving) - requests(n.plain))
      return {
        kind,
        of,
        cells: [
          `${kind} (${of.length}×)`,
          of.every((n) => n.plain.ok && n.approving.ok) ? 'ok' : 'FAILED',
          secs(plainWall),
          secs(approvingWall),
          ratio.toFixed(2),
          median(of.map((n) => requests(n.plain))),
          median(of.map((n) => requests(n.approving))),
          `${Math.min(...extra)}…${Math.max(...extra)}`,
          methods(of[of.length - 1]!.approving),
        ],
        ratio,
        extra: Math.max(...extra),
      }
    })
    table(
      `Approvals — ${options.label} rows, ${options.users} people, one Google target with approvals beside one without: nightly syncs`,
      [
        'night',
        'outcome',
        'wall without',
        'wall with',
        'wall ratio',
        'Sheets requests without',
        'with',
        'more (min…max)',
        'requests with approvals (last)',
      ],
      rows.map((r) => r.cells),
    )
    const nightly = rows.filter((r) => !r.kind.startsWith('first sync'))
    const worst = nightly.reduce((a, b) => (b.ratio > a.ratio ? b : a))
    goals.push({
      goal: `${options.label}, ${options.users} people: approvals add at most one Sheets request to a nightly sync`,
      measured: nightly.map((r) => `${r.kind}: +${r.extra}`).join('; '),
      met: nightly.every((r) => r.of.every((n) => n.plain.ok && n.approving.ok) && r.extra <= 1),
    })
    goals.push({
      goal: `${options.label}, ${options.users} people: approvals add at most 10 % to a nightly sync's wall time`,
      measured: `${nightly.map((r) => `${r.kind}: ${r.ratio.toFixed(2)}×`).join('; ')} (worst: ${worst.kind})`,
      met: nightly.every((r) => r.ratio <= 1.1),
    })
    console.log(`\n(load average ${loadStart} → ${load()})`)
  } finally {
    await host.close()
    await rm(dir, { recursive: true, force: true })
  }
}

function requests(s: Sample): number {
  return s.sheetsReads + s.sheetsWrites
}

function methods(s: Sample): string {
  return Object.entries(s.sheetsByMethod)
    .map(([method, n]) => `${method} ${n}`)
    .join(', ')
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
