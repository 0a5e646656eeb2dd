/**
 * Runs one scenario folder against one spreadsheet backend: starts the
 * reference Timeline server from `initial.json`, plays `scenario.txt` line by
 * line (CLI runs as subprocesses, manager edits, server-side changes), and
 * renders what the golden files hold: the printed plans and summaries, the
 * Activities tab, the server's Tags timelines and the exit codes.
 *
 * Rows are always found by their content or Key, never by a fixed row
 * number, since sorting moves them. The DSL is described in README.md.
 */
import { readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import type { AllowedTagsState } from '../../counterparts/timeline/store.ts'
import { runCli, tempFolder, writeConfig } from '../e2e/cli.ts'
import { createDriver, type BackendName, type Driver, type TabRead } from './drivers.ts'
import { compareKeys, escape, show, showIn } from './shown.ts'

export interface InitialActivity {
  /** A name scenario lines use for this activity's Key (`key=<ref>`). */
  ref?: string
  /** Local part (`alice`) or full username. */
  user: string
  tags: string
  start: string
  duration: number
  notes?: string
}

export interface Initial {
  /** `--now` for every CLI run until a `now` line changes it. */
  now: string
  timeZone: string
  /** Team members (alice, bob, …) next to the staff accounts. @default 2 */
  users?: number
  window?: { days: number; lookBackDays: number }
  /** Other target settings (deletedRows, users …). */
  target?: Record<string, unknown>
  /** Other top-level config settings (teams …). */
  config?: Record<string, unknown>
  /** The server's allowed tags; none when omitted. */
  allowedTags?: AllowedTagsState
  activities?: InitialActivity[]
}

export interface ScenarioOutput {
  plan: string
  sheet: string
  server: string
  exitCodes: string
}

export const GOLDEN_FILES = { plan: 'plan.txt', sheet: 'sheet.tsv', server: 'server.tsv', exitCodes: 'exit-codes.txt' } as const

const ACTIVITIES = 'Activities'
const ALLOWED_TAGS = 'Allowed tags'
const APPROVALS = 'Approvals'
const CLI_COMMANDS = new Set(['export', 'import', 'sync', 'undo'])

interface Line {
  number: number
  text: string
  words: string[]
  /** `| a | b |` lines that follow the command. */
  table: string[][]
}

class ScenarioError extends Error {}

/** Splits a scenario line into words; `name="a b"` and `"a b"` keep their spaces, `\"`, `\n` and `\t` escape. */
export function tokenize(text: string): string[] {
  const words: string[] = []
  let i = 0
  while (i < text.length) {
    while (text[i] === ' ' || text[i] === '\t') i++
    if (i >= text.length) break
    let word = ''
    while (i < text.length && text[i] !== ' ' && text[i] !== '\t') {
      if (text[i] === '"') {
        i++
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\' && i + 1 < text.length) {
            const next = text[i + 1]!
            word += next === 'n' ? '\n' : next === 't' ? '\t' : next
            i += 2
          } else word += text[i++]
        }
        if (text[i] !== '"') throw new ScenarioError(`unclosed quote in: ${text}`)
        i++
      } else word += text[i++]
    }
    words.push(word)
  }
  return words
}

export function parseScenario(source: string): Line[] {
  const lines: Line[] = []
  source.split('\n').forEach((raw, index) => {
    const text = raw.trim()
    if (text === '' || text.startsWith('#')) return
    if (text.startsWith('|')) {
      const last = lines[lines.length - 1]
      if (!last) throw new ScenarioError(`line ${index + 1}: a table row needs a command above it`)
      last.table.push(
        text
          .replace(/^\|/, '')
          .replace(/\|$/, '')
          .split('|')
          .map((c) => c.trim()),
      )
      return
    }
    lines.push({ number: index + 1, text, words: tokenize(text), table: [] })
  })
  return lines
}

function params(words: string[]): { named: Map<string, string>; loose: string[] } {
  const named = new Map<string, string>()
  const loose: string[] = []
  for (const w of words) {
    const eq = w.indexOf('=')
    if (eq > 0) named.set(w.slice(0, eq), w.slice(eq + 1))
    else loose.push(w)
  }
  return { named, loose }
}

/** Runs the scenario in `folder` on `backend` and renders its golden files. */
export async function runScenario(folder: string, backend: BackendName): Promise<ScenarioOutput> {
  const initial = JSON.parse(await readFile(path.join(folder, 'initial.json'), 'utf8')) as Initial
  const lines = parseScenario(await readFile(path.join(folder, 'scenario.txt'), 'utf8'))
  const work = await tempFolder(`scenario-${path.basename(folder)}-${backend}`)
  const server = await startReferenceServer({
    data: { users: initial.users ?? 2, days: 0, timeZones: [initial.timeZone], otherTimelines: false, allowedTags: false },
  })
  const driver = await createDriver(backend, work)
  try {
    return await new Scenario(initial, server, driver, work).play(lines)
  } finally {
    await driver.close()
    await server.close()
    await rm(work, { recursive: true, force: true })
  }
}

class Scenario {
  private now: string
  private readonly refs = new Map<string, string>()
  /** Timeline key → `{alice}`, for stable output. */
  private readonly placeholders = new Map<string, string>()
  private readonly usernames = new Map<string, string>()
  private readonly plan: string[] = []
  private readonly exits: string[] = []
  private configFile = ''
  private lastImportRun: string | undefined
  private readonly env: Record<string, string>
  private readonly secrets: string[]

  private readonly initial: Initial
  private readonly server: ReferenceServer
  private readonly driver: Driver
  private readonly work: string

  constructor(initial: Initial, server: ReferenceServer, driver: Driver, work: string) {
    this.initial = initial
    this.server = server
    this.driver = driver
    this.work = work
    this.now = initial.now
    const transfer = server.credentials.transfer!
    this.env = { TIMELINE_PASSWORD: transfer.password, ...driver.env }
    this.secrets = [transfer.password, ...driver.secrets, ...server.credentials.users.map((u) => u.password)]
    for (const u of server.credentials.users) {
      const short = u.username.replace(/@.*$/, '')
      this.usernames.set(short, u.username)
      this.usernames.set(u.username, u.username)
      if (u.tagsTimelineKey) this.placeholders.set(u.tagsTimelineKey, `{${short}}`)
    }
  }

  async play(lines: Line[]): Promise<ScenarioOutput> {
    const store = this.server.store
    if (this.initial.allowedTags) store.setAllowedTags(this.initial.allowedTags)
    for (const a of this.initial.activities ?? []) this.createOnServer(a)
    const { spreadsheet, ...google } = this.driver.config
    this.configFile = await writeConfig(this.work, {
      // One timeline written at a time, so journals (and the undo plans built from them) keep one order.
      timeline: {
        auth: { mode: 'password', baseUrl: this.server.url, username: this.server.credentials.transfer!.username },
        pace: { concurrency: 1 },
      },
      ...google,
      ...this.initial.config,
      stateDir: 'state',
      targets: [
        {
          name: 'team',
          spreadsheet,
          timeZone: this.initial.timeZone,
          window: this.initial.window ?? { days: 10, lookBackDays: 3 },
          ...this.initial.target,
        },
      ],
    })
    for (const line of lines) {
      try {
        await this.step(line)
      } catch (error) {
        if (error instanceof ScenarioError)
          throw new Error(`scenario.txt line ${line.number} (${line.text}): ${error.message}`, { cause: error })
        throw error
      }
    }
    return {
      plan: `${this.plan.join('\n').trimEnd()}\n`,
      sheet: await this.renderSheet(),
      server: this.renderServer(),
      exitCodes: `${this.exits.join('\n')}\n`,
    }
  }

  private createOnServer(a: InitialActivity & { ref?: string }): void {
    const username = this.user(a.user)
    const timeline = this.server.store.timelineOf(username)
    if (!timeline) throw new ScenarioError(`${username} has no Tags timeline`)
    const created = this.server.store.createActivity(timeline.key, { tags: a.tags, start: a.start, duration: a.duration, notes: a.notes })
    if (a.ref) this.refs.set(a.ref, `${timeline.key}/${created.id}`)
  }

  private user(name: string): string {
    const username = this.usernames.get(name)
    if (!username) throw new ScenarioError(`no user ${name} on the server`)
    return username
  }

  private async step(line: Line): Promise<void> {
    const [command, ...rest] = line.words
    if (CLI_COMMANDS.has(command!)) return this.cli(line.words)
    const { named, loose } = params(rest)
    const need = (name: string): string => {
      const v = named.get(name)
      if (v === undefined) throw new ScenarioError(`${command} needs ${name}=`)
      return v
    }
    switch (command) {
      case 'now':
        this.now = loose[0] ?? need('now')
        return
      case 'edit-cell': {
        const { tab, row } = await this.findOne(named)
        // `key-of=<ref>` puts that activity's Key in the cell, as a manager copying a Key from another sheet would.
        const ref = named.get('key-of')
        const value = ref !== undefined ? this.keyOf(ref).key : need('value')
        await this.driver.setCell(ACTIVITIES, row, this.column(tab, need('column')), value === '' ? null : value)
        return
      }
      case 'type-cell': {
        const { tab, row } = await this.findOne(named)
        await this.driver.typeCell(ACTIVITIES, row, this.column(tab, need('column')), need('text'))
        return
      }
      case 'tick-delete': {
        const { tab, row } = await this.findOne(named)
        await this.driver.setCell(ACTIVITIES, row, this.column(tab, 'Delete'), true)
        return
      }
      case 'tick-approved':
      case 'untick-approved': {
        // A manager's tick (or untick) in the Approvals tab, on the row of one person and period.
        const { tab, row } = await this.findOne(named, APPROVALS)
        await this.driver.setCell(APPROVALS, row, this.column(tab, 'Approved'), command === 'tick-approved')
        return
      }
      case 'type-approved-by': {
        const { tab, row } = await this.findOne(named, APPROVALS)
        await this.driver.typeCell(APPROVALS, row, this.column(tab, 'Approved by'), need('text'))
        return
      }
      case 'sort-tab': {
        const tab = await this.driver.read(ACTIVITIES)
        const header = loose[0] ?? need('column')
        await this.driver.sortTab(ACTIVITIES, this.column(tab, header), header, loose[1] === 'descending')
        return
      }
      case 'insert-blank-row': {
        const at = Number(loose[0])
        if (!Number.isInteger(at) || at < 2) throw new ScenarioError('insert-blank-row needs a sheet row number ≥ 2')
        await this.driver.insertBlankRow(ACTIVITIES, at)
        return
      }
      case 'delete-row-of': {
        const { row } = await this.findOne(named)
        await this.driver.deleteRows(ACTIVITIES, [row])
        return
      }
      case 'delete-rows-of': {
        const { rows } = await this.find(named)
        if (rows.length === 0) throw new ScenarioError('no row matches')
        await this.driver.deleteRows(ACTIVITIES, rows)
        return
      }
      case 'filter-rows': {
        // Keeps the matching rows visible, hides the others (a filter on the header row).
        const { tab, rows } = await this.find(named)
        const shown = new Set(rows)
        const hidden = tab.rows.map((_, i) => i + 2).filter((r) => !shown.has(r))
        await this.driver.filterRows(ACTIVITIES, hidden, tab.header.length)
        return
      }
      case 'show-tab': {
        // Records a tab as it is now in plan.txt (a Status before a later run rewrites it, the Sync log).
        const title = loose.join(' ') || ACTIVITIES
        this.plan.push(`--- ${title} tab ---`, (await this.renderTab(title)).trimEnd(), '')
        return
      }
      case 'paste-rows':
        return this.pasteRows(line, named)
      case 'server-create':
        this.createOnServer({
          ref: named.get('ref'),
          user: need('user'),
          tags: need('tags'),
          start: need('start'),
          duration: Number(need('duration')),
          notes: named.get('notes'),
        })
        return
      case 'server-update':
        this.serverUpdate(named)
        return
      case 'server-update-during-next-run': {
        // Another writer changes the activity just before the CLI's nth write request.
        const nth = Number(named.get('nth') ?? '1')
        const update = new Map(named)
        update.delete('nth')
        this.server.faults.addConcurrentWriter({
          before: { writesOnly: true, path: '/activities' },
          nth,
          run: () => this.serverUpdate(update),
        })
        return
      }
      case 'server-delete': {
        const { timelineKey, entityId } = this.keyOf(need('key'))
        this.server.store.deleteActivity(timelineKey, entityId)
        return
      }
      case 'server-set-allowed-tags':
        this.server.store.setAllowedTags(allowedFromTable(line.table))
        return
      case 'edit-allowed-tags':
        return this.editAllowedTags(loose[0], named)
      default:
        throw new ScenarioError(`unknown command ${command}`)
    }
  }

  private async cli(words: string[]): Promise<void> {
    // `undo last`: the run id of the latest import or sync, which the scenario cannot know in advance.
    const resolved = words.map((w, i) => {
      if (!(words[0] === 'undo' && i === 1 && w === 'last')) return w
      if (!this.lastImportRun) throw new ScenarioError('undo last needs an import or sync before it')
      return this.lastImportRun
    })
    const args = [...resolved, '--config', this.configFile, '--now', this.now]
    const run = await runCli(args, this.env, 60_000)
    for (const secret of this.secrets) {
      if (run.stdout.includes(secret) || run.stderr.includes(secret)) throw new Error(`${words.join(' ')} printed a secret`)
    }
    const imported = /^Import \S+ \((\d{8}T\d{6}Z-[a-z0-9]+)\)/m.exec(run.stdout)
    if (imported && (words[0] === 'import' || words[0] === 'sync')) this.lastImportRun = imported[1]
    const shown = words.join(' ')
    this.exits.push(`${shown} -> ${run.code}`)
    this.plan.push(`$ ${shown}`)
    const out = this.normalise(run.stdout).trimEnd()
    const err = this.normalise(run.stderr).trimEnd()
    if (out) this.plan.push(out)
    if (err) this.plan.push(...err.split('\n').map((l) => `stderr: ${l}`))
    this.plan.push(`(exit ${run.code})`, '')
  }

  private normalise(text: string): string {
    let out = text
    for (const [key, name] of this.placeholders) out = out.split(key).join(name)
    return out
      .replace(/\b\d{8}T\d{6}Z-[a-z0-9]+\b/g, '{run-id}')
      .replace(/\btime=\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, 'time={now}')
      .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:{port}')
      .split(this.work)
      .join('{dir}')
      .replace(/^(\s*spreadsheet: ).*$/gm, '$1{spreadsheet}')
      .replace(/Sheets requests: \d+ reads, \d+ writes/g, 'Sheets requests: {n} reads, {n} writes')
  }

  private keyOf(ref: string): { key: string; timelineKey: string; entityId: number } {
    let key = this.refs.get(ref)
    if (!key) {
      const m = /^\{(\w+)\}\/(\d+)$/.exec(ref)
      const timeline = m ? [...this.placeholders].find(([, name]) => name === `{${m[1]}}`)?.[0] : undefined
      if (!m || !timeline) throw new ScenarioError(`no activity ref ${ref}`)
      key = `${timeline}/${m[2]}`
    }
    const [timelineKey, id] = key.split('/') as [string, string]
    return { key, timelineKey, entityId: Number(id) }
  }

  private serverUpdate(named: Map<string, string>): void {
    const { timelineKey, entityId } = this.keyOf(named.get('key') ?? '')
    const store = this.server.store
    const current = store.activity(timelineKey, entityId)
    if (!current) throw new ScenarioError(`activity ${named.get('key')} is not on the server`)
    store.updateActivity(timelineKey, entityId, {
      tags: named.get('tags') ?? store.tagsOf(timelineKey, current),
      notes: named.has('notes') ? named.get('notes') : current.notes,
      start: named.get('start') ?? current.start,
      duration: named.has('duration') ? Number(named.get('duration')) : current.duration,
    })
  }

  private column(tab: TabRead, name: string): number {
    const i = tab.header.indexOf(name)
    if (i < 0) throw new ScenarioError(`no column ${name} in ${tab.header.join(', ')}`)
    return i
  }

  /** Rows whose cells match every `Column=value` (as shown, see `show`) and `key=<ref>`. */
  private async find(named: Map<string, string>, title = ACTIVITIES): Promise<{ tab: TabRead; rows: number[] }> {
    const tab = await this.driver.read(title)
    const checks: { column: number; value: string; user: boolean }[] = []
    for (const [name, value] of named) {
      if (name === 'key') checks.push({ column: this.column(tab, 'Key'), value: this.keyOf(value).key, user: false })
      else if (/^[A-Z]/.test(name)) checks.push({ column: this.column(tab, name), value, user: name === 'User' })
    }
    if (checks.length === 0) throw new ScenarioError('a row selector needs Column=value or key=ref')
    const rows: number[] = []
    tab.rows.forEach((cells, i) => {
      const ok = checks.every(({ column, value, user }) => {
        const shown = show(tab.header[column]!, cells[column] ?? null)
        return shown === value || (user && shown.replace(/@.*$/, '') === value)
      })
      if (ok && cells.length > 0) rows.push(i + 2)
    })
    return { tab, rows }
  }

  private async findOne(named: Map<string, string>, title = ACTIVITIES): Promise<{ tab: TabRead; row: number }> {
    const { tab, rows } = await this.find(named, title)
    if (rows.length !== 1) throw new ScenarioError(`the selector matches ${rows.length} rows, not one`)
    return { tab, row: rows[0]! }
  }

  private async pasteRows(line: Line, named: Map<string, string>): Promise<void> {
    const [head, ...body] = line.table
    if (!head || body.length === 0) throw new ScenarioError('paste-rows needs a header row and at least one row: | User | Date | … |')
    const tab = await this.driver.read(ACTIVITIES)
    const columns = head.map((h) => this.column(tab, h))
    const first = Math.min(...columns)
    const last = Math.max(...columns)
    const block = body.map((cells) => {
      const out: (string | null)[] = Array.from({ length: last - first + 1 }, () => null)
      cells.forEach((text, j) => {
        if (text !== '') out[columns[j]! - first] = text
      })
      return out
    })
    // Below the last row unless told where (at=<row>, a position a manager picked on screen).
    const at = named.has('at') ? Number(named.get('at')) : tab.rows.length + 2
    await this.driver.paste(ACTIVITIES, at, first, block)
  }

  private async editAllowedTags(action: string | undefined, named: Map<string, string>): Promise<void> {
    const tab = await this.driver.read(ALLOWED_TAGS)
    const tagsColumn = this.column(tab, 'Tags')
    if (action === 'add') {
      const row = tab.rows.length + 2
      await this.driver.setCell(ALLOWED_TAGS, row, this.column(tab, 'Applies to'), named.get('applies-to') ?? 'everyone')
      await this.driver.setCell(ALLOWED_TAGS, row, tagsColumn, named.get('tags') ?? '')
      return
    }
    if (action === 'clear') {
      const rows = tab.rows.map((_, i) => i + 2)
      if (rows.length > 0) await this.driver.deleteRows(ALLOWED_TAGS, rows)
      return
    }
    if (action === 'remove') {
      const rows = tab.rows.map((r, i) => (r[tagsColumn] === named.get('tags') ? i + 2 : 0)).filter(Boolean)
      if (rows.length !== 1) throw new ScenarioError(`${rows.length} Allowed tags rows hold "${named.get('tags')}"`)
      await this.driver.deleteRows(ALLOWED_TAGS, rows)
      return
    }
    throw new ScenarioError('edit-allowed-tags add applies-to=… tags=… | remove tags=… | clear')
  }

  private async renderSheet(): Promise<string> {
    return this.renderTab(ACTIVITIES)
  }

  /** A tab as TSV: the Activities rows sorted by Key then content, other tabs in sheet order. */
  private async renderTab(title: string): Promise<string> {
    let tab: TabRead
    try {
      tab = await this.driver.read(title)
    } catch {
      return `(no ${title} tab)\n`
    }
    if (title !== ACTIVITIES) {
      const when = tab.header.indexOf('When')
      const rows = tab.rows.map((cells) =>
        tab.header
          .map((h, i) =>
            i === when ? '{now}' : typeof cells[i] === 'number' ? showIn(title, h, cells[i]) : this.normalise(show(h, cells[i] ?? null)),
          )
          .join('\t'),
      )
      return `${[tab.header.join('\t'), ...rows].join('\n')}\n`
    }
    const keyColumn = tab.header.indexOf('Key')
    const blank = tab.rows.filter((r) => r.length === 0).length
    const lines = tab.rows
      .filter((r) => r.length > 0)
      .map((cells) => ({
        key: keyColumn >= 0 ? show('Key', cells[keyColumn] ?? null) : '',
        text: tab.header.map((h, i) => this.normalise(show(h, cells[i] ?? null))).join('\t'),
      }))
      .sort((a, b) => compareKeys(a.key, b.key) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
      .map((l) => l.text)
    return `${[tab.header.join('\t'), ...lines, ...(blank ? [`(${blank} blank rows)`] : [])].join('\n')}\n`
  }

  private renderServer(): string {
    const store = this.server.store
    const lines = ['Key\tUser\tStart\tDuration\tTags\tNotes']
    const timelines = store
      .timelines()
      .filter((t) => t.kind === 'Tags')
      .sort((a, b) => a.owner.localeCompare(b.owner))
    for (const t of timelines) {
      for (const a of store.activities(t.key)) {
        lines.push(
          [
            `${this.placeholders.get(t.key) ?? t.key}/${a.id}`,
            t.owner,
            a.start,
            String(a.duration),
            store.tagsOf(t.key, a).join(', '),
            escape(a.notes ?? ''),
          ].join('\t'),
        )
      }
    }
    lines.push('', 'Allowed tags (getAll listing):')
    for (const l of store.allowedTagsListing()) lines.push(l === '' ? '  --' : `  ${l}`)
    return `${lines.join('\n')}\n`
  }
}

function allowedFromTable(table: string[][]): AllowedTagsState {
  const everyone: string[] = []
  const groups = new Map<string, string[]>()
  for (const [applies, tags] of table) {
    if (!tags) throw new ScenarioError('server-set-allowed-tags rows are | applies to | tags |')
    if (!applies || applies === 'everyone') everyone.push(tags)
    else groups.set(applies, [...(groups.get(applies) ?? []), tags])
  }
  return { everyone, groups: [...groups].map(([applies, combinations]) => ({ appliesTo: applies.split(/\s*,\s*/), combinations })) }
}
