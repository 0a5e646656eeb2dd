/**
 * `npm run demo`: the whole product in a minute with nothing installed. Starts
 * the bundled reference Timeline server with generated data, runs the real
 * CLI (`export`) as a subprocess into a local workbook, prints where it is and
 * what it holds, then runs it again to show an incremental run. It ends with a
 * manager approving a week of the Engineering team's sheet.
 */
import { spawn } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startReferenceServer } from '../counterparts/timeline/server.ts'
import { periodOf } from '../src/core/periods.ts'
import { createWorkbookSpreadsheet } from '../src/sheets/workbook/backend.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const folder = path.join(root, 'demo')
const timeZone = 'Europe/Berlin'
const days = 35

const today = new Date()
const start = new Date(today.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10)

await rm(folder, { recursive: true, force: true })
await mkdir(folder, { recursive: true })

const server = await startReferenceServer({ data: { users: 6, days, startDate: start, timeZones: [timeZone, 'America/New_York'] } })
const transfer = server.credentials.transfer!
// The config says who is in which team (the API has no team directory); here, as the generated data has them.
const teams: Record<string, string[]> = {}
for (const user of server.credentials.users) for (const team of user.teams ?? []) (teams[team] ??= []).push(user.username)
const configFile = path.join(folder, 'timeline-sheets.json')
await writeFile(
  configFile,
  JSON.stringify(
    {
      vendor: 'manictime',
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: transfer.username, passwordEnv: 'DEMO_TIMELINE_PASSWORD' } },
      stateDir: 'state',
      teams,
      targets: [
        { name: 'demo', spreadsheet: { kind: 'workbook', path: 'timeline-sheets-demo.xlsx' }, timeZone, window: { days, lookBackDays: 7 } },
        // One team's own sheet: its people only, and of the allowed tags only the lines that apply to them.
        {
          name: 'engineering',
          spreadsheet: { kind: 'workbook', path: 'engineering-team.xlsx' },
          teams: ['Engineering'],
          timeZone,
          window: { days, lookBackDays: 7 },
          // Its managers approve each person's weeks in an Approvals tab (decisions/0026).
          approvals: { period: 'week' },
        },
      ],
    },
    null,
    2,
  ),
)

process.stdout.write(`Reference Timeline server: ${server.url} (signing in as ${transfer.username}, a content editor)\n\n`)

try {
  await cli(['export'])
  process.stdout.write("\nRunning export again: now incremental, through the server's updatedactivities links.\n\n")
  await cli(['export'])

  // A manager corrects a note and adds a forgotten hour, the way they would in Excel; sync sends both.
  const file = path.join(folder, 'timeline-sheets-demo.xlsx')
  const alice = server.credentials.users[0]!
  await managerEdits(file, alice.username)
  process.stdout.write(
    `\nA manager edited row 2's Notes and added a row for ${alice.username} in the workbook. Running sync (import, then export).\n\n`,
  )
  await cli(['sync'])
  const added = server.store.activities(alice.tagsTimelineKey!).filter((a) => a.notes === 'Forgot to log the client call')
  process.stdout.write(
    `\nOn the server now: ${added.length} new activity for ${alice.username} (${added[0]?.start ?? 'missing'}), and row 2's note changed.\n`,
  )

  const workbook = createWorkbookSpreadsheet({ path: file })
  const snapshot = await workbook.read(['Activities', 'Allowed tags', 'Sync log'])
  const activities = snapshot.tabs['Activities']!
  process.stdout.write(`\nThe workbook: ${path.join(folder, 'timeline-sheets-demo.xlsx')}\n`)
  process.stdout.write(
    `  Activities: ${activities.rows.length} rows; Allowed tags: ${snapshot.tabs['Allowed tags']!.rows.length} rows; Sync log: ${snapshot.tabs['Sync log']!.rows.length} runs\n`,
  )
  process.stdout.write(`  First rows (${activities.header.slice(0, 8).join(' | ')}):\n`)
  for (const row of activities.rows.slice(0, 5)) {
    process.stdout.write(`    ${row.slice(0, 8).map(show).join(' | ')}\n`)
  }
  const teamFile = path.join(folder, 'engineering-team.xlsx')
  const team = await createWorkbookSpreadsheet({ path: teamFile }).read(['Activities', 'Allowed tags'])
  const people = new Set(team.tabs['Activities']!.rows.map((r) => String(r[0])))
  process.stdout.write(
    `\nThe Engineering team's workbook: ${teamFile}\n  Activities: ${team.tabs['Activities']!.rows.length} rows, of ${[...people].join(' and ')} only; Allowed tags: ${team.tabs['Allowed tags']!.rows.length} rows, without the lines for other people and teams\n`,
  )

  // A manager approves one person's last week: ticks Approved and types a name, then the next sync takes it.
  const lastWeek = periodOf(new Date(today.getTime() - 7 * 86_400_000).toISOString().slice(0, 10), 'week').id
  const approver = 'Mia Manager'
  const approved = await approveWeek(teamFile, lastWeek, approver)
  process.stdout.write(`\n${approver} ticked Approved for ${approved}'s ${lastWeek} in the Engineering workbook. Running sync.\n\n`)
  await cli(['sync', '--target', 'engineering'])
  const read = (await createWorkbookSpreadsheet({ path: teamFile }).read(['Approvals', 'Approved'])).tabs
  const approvals = read['Approvals']!
  const at = (name: string) => approvals.header.indexOf(name)
  const line = approvals.rows.find((r) => r[at('User')] === approved && r[at('Period')] === lastWeek)
  process.stdout.write(
    `\nThe approval: ${approved} ${lastWeek} (${show(line?.[at('From')])} to ${show(line?.[at('To')])}): ${String(line?.[at('Status')] ?? 'no row')}\n  On record, in the locked Approved tab: ${read['Approved']?.rows.length ?? 0} activities.\n  The record: ${path.join(folder, 'state', 'engineering', 'approvals.json')}; payroll's report: timeline-sheets report --target engineering\n`,
  )
  process.stdout.write(`\nOpen them in LibreOffice or Excel. The config used is ${configFile}.\n`)
} finally {
  await server.close()
}

/**
 * What Excel stores when a person types these: a date serial, times as day fractions, text. Written through
 * the tool's own workbook code, because exceljs rewrites every time cell as a Date and back with float noise
 * (0.36458333333212 for 08:45), which LibreOffice's hh:mm then shows as 08:44.
 */
async function managerEdits(file: string, user: string): Promise<void> {
  const workbook = createWorkbookSpreadsheet({ path: file })
  const basis = await workbook.read(['Activities'])
  const header = basis.tabs['Activities']!.header.map(String)
  const col = (name: string) => header.indexOf(name)
  const yesterday = Math.floor(Date.now() / 86_400_000) - 1 + 25_569
  const row: (string | number | null)[] = header.map(() => null)
  row[col('User')] = user
  row[col('Date')] = yesterday
  row[col('Start')] = 16 / 24
  row[col('End')] = 17 / 24
  row[col('Tags')] = 'Acme Corp, Website, Review'
  row[col('Notes')] = 'Forgot to log the client call'
  await workbook.write(
    [{ tab: 'Activities', updates: [{ row: 2, column: col('Notes'), values: ['Checked by the manager'] }], appends: [row] }],
    basis,
  )
}

/** Ticks Approved and types a name on the first Approvals row of `period`, through the tool's workbook code. */
async function approveWeek(file: string, period: string, approver: string): Promise<string> {
  const workbook = createWorkbookSpreadsheet({ path: file })
  const basis = await workbook.read(['Approvals'])
  const tab = basis.tabs['Approvals']!
  const col = (name: string) => tab.header.map(String).indexOf(name)
  const index = tab.rows.findIndex((r) => r[col('Period')] === period && Number(r[col('Hours')]) > 0)
  if (index < 0) throw new Error(`The Approvals tab has no row of ${period} with hours`)
  const row = index + 2
  await workbook.write(
    [
      {
        tab: 'Approvals',
        updates: [
          { row, column: col('Approved'), values: [true] },
          { row, column: col('Approved by'), values: [approver] },
        ],
      },
    ],
    basis,
  )
  return String(tab.rows[index]![col('User')])
}

function show(value: unknown): string {
  if (typeof value === 'number' && value > 30000) return new Date((value - 25569) * 86_400_000).toISOString().slice(0, 10)
  if (typeof value === 'number' && value < 1) {
    const minutes = Math.round(value * 1440)
    return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
  }
  return String(value ?? '')
    .replace(/\n/g, ' ')
    .slice(0, 40)
}

function cli(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'src/cli/main.ts'), '--config', configFile, ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEMO_TIMELINE_PASSWORD: transfer.password },
    })
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0 || code === 3 ? resolve() : reject(new Error(`timeline-sheets ${args.join(' ')} exited with ${code}`)),
    )
  })
}
