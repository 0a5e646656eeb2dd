/**
 * How a run talks to the person or the scheduler watching it. On a terminal:
 * a progress bar and plain lines on stderr. Elsewhere (cron, CI): one
 * structured `key=value` line per event, progress every 10 %. The result goes
 * to stdout: text, or JSON with --json. No URL's user name or password is
 * ever written, whatever a message holds.
 */
import { silentReporter as silentRunReporter, type Reporter as RunReporter } from '../engine/reporter.ts'
import { redactUserInfo } from '../errors.ts'

/** The engine's reporter, plus the run's result on stdout. */
export interface Reporter extends RunReporter {
  result(text: string, json: unknown): void
}

export interface ReporterOptions {
  json: boolean
  /** With `json`: each result on one line (a scheduled sync prints one per run), not indented. */
  jsonLines?: boolean
  verbose: boolean
  quiet?: boolean
  stdout?: NodeJS.WritableStream & { isTTY?: boolean }
  stderr?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }
  now?: () => Date
}

export function createReporter(options: ReporterOptions): Reporter {
  const stdout = options.stdout ?? process.stdout
  const stderr = options.stderr ?? process.stderr
  const tty = Boolean(stderr.isTTY) && !options.json
  const now = options.now ?? (() => new Date())
  let barShown = false
  const lastStep = new Map<string, number>()

  const clearBar = () => {
    if (barShown) {
      stderr.write('\r\x1b[K')
      barShown = false
    }
  }
  const line = (level: string, message: string, fields?: Record<string, unknown>) => {
    if (tty) {
      clearBar()
      const extra =
        fields && Object.keys(fields).length
          ? ` (${Object.entries(fields)
              .map(([k, v]) => `${k}: ${String(v)}`)
              .join(', ')})`
          : ''
      stderr.write(redactUserInfo(`${level === 'warn' ? 'warning: ' : ''}${message}${extra}\n`))
    } else {
      stderr.write(redactUserInfo(`${structured({ time: now().toISOString(), level, msg: message, ...fields })}\n`))
    }
  }

  return {
    info: (message, fields) => {
      if (!options.quiet) line('info', message, fields)
    },
    warn: (message, fields) => line('warn', message, fields),
    debug: (message, fields) => {
      if (options.verbose) line('debug', message, fields)
    },
    progress(label, done, total) {
      if (options.quiet) return
      if (tty) {
        const width = Math.max(10, Math.min(30, (stderr.columns ?? 80) - label.length - 25))
        const share = total > 0 ? Math.min(1, done / total) : 0
        const filled = Math.round(share * width)
        stderr.write(`\r\x1b[K${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`)
        barShown = true
        return
      }
      const step = total > 0 ? Math.floor((done / total) * 10) : 10
      if (step !== lastStep.get(label) && step > (lastStep.get(label) ?? -1)) {
        lastStep.set(label, step)
        line('info', label, { done, total })
      }
    },
    endProgress: clearBar,
    result(text, json) {
      clearBar()
      const asJson = options.jsonLines ? JSON.stringify(json) : JSON.stringify(json, null, 2)
      stdout.write(redactUserInfo(options.json ? `${asJson}\n` : `${text}\n`))
    },
  }
}

/** `key=value` with quoting only where needed, so logs stay greppable. */
export function structured(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const text = typeof value === 'string' ? value : JSON.stringify(value)
      return `${key}=${/^[^\s"=]+$/.test(text) ? text : JSON.stringify(text)}`
    })
    .join(' ')
}

/** Says nothing, the result included. */
export const silentReporter: Reporter = { ...silentRunReporter, result: () => undefined }
