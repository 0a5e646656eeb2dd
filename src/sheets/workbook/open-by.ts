/**
 * Who has a workbook open, from the lock files Excel and LibreOffice keep beside it while they have it open:
 * LibreOffice's `.~lock.<name>#` and Excel's owner file `~$<name>`. Both name the user; neither is a lock the
 * operating system enforces (a crashed program leaves its file behind), so they only ever serve to say who to
 * ask, never to decide whether to write. Formats as decisions/0025-open-workbooks.md records them; a file that
 * does not parse names nobody rather than fail the run.
 */
import { TimelineSheetsError } from '../../errors.ts'
import type { Platform } from '../../state/platform.ts'

/** A program that has the workbook open, as its lock file says. */
export interface Holder {
  program: 'LibreOffice' | 'Excel'
  /** The user's name as the program recorded it; undefined when the file named nobody readable. */
  user: string | undefined
  /** The computer (LibreOffice only). */
  host?: string
  /** When it was opened, as LibreOffice wrote it (`12.03.2026 10:15`). */
  since?: string
  lockFile: string
}

/** The lock files Excel and LibreOffice make for `file`, in its folder. */
export function lockFilesOf(file: string, platform: Platform): { program: Holder['program']; lockFile: string }[] {
  const folder = platform.path.dirname(file)
  const name = platform.path.basename(file)
  // Excel keeps the whole name for workbooks (Word, not Excel, cuts a long name's first characters).
  return [
    { program: 'LibreOffice', lockFile: platform.path.join(folder, `.~lock.${name}#`) },
    { program: 'Excel', lockFile: platform.path.join(folder, `~$${name}`) },
  ]
}

/** The holders whose lock files lie beside `file`; none when there are none or none can be read. */
export async function holdersOf(file: string, readFile: (file: string) => Promise<Uint8Array>, platform: Platform): Promise<Holder[]> {
  const holders: Holder[] = []
  for (const { program, lockFile } of lockFilesOf(file, platform)) {
    let bytes: Uint8Array
    try {
      bytes = await readFile(lockFile)
    } catch (error) {
      // Excel may hold its owner file open: it is there, only who wrote it is unknown.
      const code = (error as NodeJS.ErrnoException | undefined)?.code
      if (code === 'EBUSY' || code === 'EPERM' || code === 'EACCES') holders.push({ program, user: undefined, lockFile })
      continue
    }
    if (program === 'LibreOffice') holders.push({ program, lockFile, ...parseLibreOfficeLock(bytes) })
    else holders.push({ program, lockFile, user: parseExcelOwner(bytes) })
  }
  return holders
}

/**
 * LibreOffice's lock file: one entry `<full name>,<login>,<host>,<date>,<profile URL>;` in UTF-8, where `\`
 * escapes `,` `;` and `\`. The full name (Tools ▸ Options ▸ User Data) is often empty: then the login names the user.
 */
export function parseLibreOfficeLock(bytes: Uint8Array): { user: string | undefined; host?: string; since?: string } {
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, 4096))
  const fields: string[] = []
  let field = ''
  let escaped = false
  for (const char of text) {
    if (escaped) {
      field += char
      escaped = false
    } else if (char === '\\') escaped = true
    else if (char === ',' || char === ';') {
      fields.push(field)
      field = ''
      if (char === ';' || fields.length === 5) break
    } else field += char
  }
  const [fullName, login, host, since] = fields.map(readable)
  const user = fullName || login
  return { user: user || undefined, ...(host ? { host } : {}), ...(since ? { since } : {}) }
}

/**
 * Excel's owner file (162 or 165 bytes): the user name's length in one byte and the name in the Windows code
 * page; at byte 54 (Word) or 55 (Excel) a two-byte length and the name again in UTF-16LE; padding after. The
 * UTF-16 copy is read first (the code page is unknown here), the code-page one when that is not sound.
 */
export function parseExcelOwner(bytes: Uint8Array): string | undefined {
  const MAX = 52
  // As LibreOffice tells them apart: a length 0x20 at 54 with something before it is Excel's padding.
  const at = bytes[54] === 0x20 && (bytes[53] !== 0 || bytes[52] !== 0) ? 55 : 54
  const length = (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8)
  if (length > 0 && length <= MAX && at + 2 + 2 * length <= bytes.length) {
    const name = readable(new TextDecoder('utf-16le').decode(bytes.subarray(at + 2, at + 2 + 2 * length)))
    if (name) return name
  }
  const ansi = bytes[0] ?? 0
  if (ansi > 0 && ansi <= MAX && 1 + ansi <= bytes.length) {
    const name = readable(new TextDecoder('windows-1252').decode(bytes.subarray(1, 1 + ansi)))
    if (name) return name
  }
  return undefined
}

/** Text from a file someone else wrote, fit for a message: no control characters, no replacement marks, trimmed. */
function readable(text: string | undefined): string {
  return (text ?? '')
    .replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, '')
    .trim()
    .slice(0, 100)
}

/** `Ann Example (LibreOffice on ANN-PC, since 12.03.2026 10:15)`, or what is known of whoever it is. */
export function describeHolder(holder: Holder): string {
  const where = [holder.host ? `on ${holder.host}` : '', holder.since ? `since ${holder.since}` : ''].filter(Boolean).join(', ')
  const program = `${holder.program}${where ? ` ${where}` : ''}`
  return holder.user ? `${holder.user} (${program})` : `someone in ${program} (${holder.lockFile} names nobody readable)`
}

/** The workbook could not be replaced because another program holds it open; nothing was written to it. */
export class WorkbookOpenError extends TimelineSheetsError {
  readonly file: string
  readonly holders: readonly Holder[]
  /** The refusal's errno code: `EBUSY`, `EPERM`, `EACCES`. */
  readonly errno: string
  readonly attempts: number

  constructor(init: { file: string; holders: readonly Holder[]; errno: string; attempts: number; waitedMs: number; cause: unknown }) {
    const who = init.holders.length
      ? `${init.holders.map(describeHolder).join(' and ')} ${init.holders.length === 1 ? 'has' : 'have'} it open`
      : 'no Excel or LibreOffice lock file beside it names who has it open'
    const tried = `tried ${init.attempts} times over ${Math.round(init.waitedMs / 100) / 10} s`
    const named = init.holders.find((holder) => holder.user)
    super(
      'TS_WORKBOOK_OPEN',
      `The workbook ${init.file} is open in another program and could not be replaced (${init.errno}, ${tried}): ${who}. ` +
        'Nothing was written to it and nothing is lost: the next run writes what this one could not.',
      {
        hint: named
          ? `Ask ${named.user} to close ${init.file} in ${named.program} (or close it yourself), then run again.`
          : `Close ${init.file} in Excel or LibreOffice, then run again. If nobody has it open, a backup, sync or virus scanner may hold it for a moment: run again later.`,
        cause: init.cause,
      },
    )
    this.file = init.file
    this.holders = init.holders
    this.errno = init.errno
    this.attempts = init.attempts
  }
}
