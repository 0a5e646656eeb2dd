/**
 * A strict reader of Prometheus' text exposition format (version 0.0.4), what node_exporter's textfile collector
 * and a scrape of /metrics parse: promtool is not available here, so this follows the format's rules and refuses
 * what they refuse. Rules checked:
 *
 * - The text ends in a newline; lines are `# HELP name text`, `# TYPE name type`, other `#` comments, or samples.
 * - A sample is `name{label="value",…} value [timestamp]`: metric names `[a-zA-Z_:][a-zA-Z0-9_:]*`, label names
 *   `[a-zA-Z_][a-zA-Z0-9_]*` (not starting `__`), label values with `\\`, `\"` and `\n` the only escapes, a value
 *   Go's ParseFloat reads (`NaN`, `+Inf`, `-Inf` included), an optional integer timestamp.
 * - At most one HELP and one TYPE per family, both before its first sample; the type one of counter, gauge,
 *   histogram, summary, untyped; a family's samples together (not interleaved with another's); no series twice.
 * - promtool's lint on top: a counter's name ends in `_total`; a `_total`, `_count`, `_sum` or `_bucket` name is no
 *   gauge.
 */

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  help: string | undefined
  type: string | undefined
  samples: Sample[]
}

const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|Inf|NaN)$/

/** Parses `text`, throwing an error that starts `Not the exposition format:` and names the line of the first rule it breaks. */
export function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('Not the exposition format: the text does not end in a newline')
  const families = new Map<string, Family>()
  const closed = new Set<string>()
  const series = new Set<string>()
  let current: string | undefined
  const lines = text.slice(0, -1).split('\n')
  lines.forEach((line, index) => {
    const fail = (why: string): never => {
      throw new Error(`Not the exposition format: line ${index + 1} (${JSON.stringify(line)}): ${why}`)
    }
    const family = (name: string): Family => {
      if (!METRIC.test(name)) fail(`"${name}" is not a metric name`)
      if (current !== name) {
        if (current !== undefined) closed.add(current)
        if (closed.has(name)) fail(`the family ${name} appears again after another family`)
        current = name
      }
      let f = families.get(name)
      if (!f) families.set(name, (f = { name, help: undefined, type: undefined, samples: [] }))
      return f
    }
    if (line.trim() === '') return
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line)
      if (!m) return
      const f = family(m[2]!)
      if (m[1] === 'HELP') {
        if (f.help !== undefined) fail('a second HELP')
        if (/\\[^\\n]/.test((m[3] ?? '').replace(/\\\\/g, ''))) fail('an escape other than \\\\ and \\n in HELP')
        f.help = m[3] ?? ''
      } else {
        if (f.type !== undefined) fail('a second TYPE')
        if (f.samples.length > 0) fail('TYPE after the first sample')
        if (!TYPES.has(m[3] ?? '')) fail(`"${m[3]}" is not a metric type`)
        f.type = m[3]
        if (f.type === 'counter' && !f.name.endsWith('_total')) fail(`the counter ${f.name} does not end in _total`)
        if (f.type === 'gauge' && /_(total|count|sum|bucket)$/.test(f.name)) fail(`the gauge ${f.name} has a counter's suffix`)
      }
      return
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line)
    if (!m) return fail('not a sample line')
    const name = m[1]!
    const labels = m[2] === undefined ? {} : parseLabels(m[3]!, fail)
    if (!FLOAT.test(m[4]!)) fail(`"${m[4]}" is not a sample value`)
    const value = Number(m[4]!.replace(/^([+-]?)Inf$/, '$1Infinity'))
    const base = familyOf(name, families)
    const f = family(base)
    if (f.type === undefined) fail(`a sample of ${base} before its TYPE`)
    const key = `${name}{${Object.entries(labels)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(',')}}`
    if (series.has(key)) fail(`the series ${key} a second time`)
    series.add(key)
    f.samples.push({ name, labels, value })
  })
  return families
}

/** The family a sample belongs to: its own name, or a histogram's or summary's whose suffix it carries. */
function familyOf(name: string, families: Map<string, Family>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length)
      const type = families.get(base)?.type
      if (type === 'histogram' || type === 'summary') return base
    }
  }
  return name
}

function parseLabels(text: string, fail: (why: string) => never): Record<string, string> {
  const labels: Record<string, string> = {}
  let rest = text
  while (rest.length > 0) {
    const m = /^([^=]+)="((?:[^"\\\n]|\\["\\n])*)"(,?)/.exec(rest)
    if (!m) return fail(`labels "${text}" are not name="value" pairs`)
    const name = m[1]!
    if (!LABEL.test(name) || name.startsWith('__')) fail(`"${name}" is not a label name`)
    if (name in labels) fail(`the label ${name} twice`)
    labels[name] = m[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c))
    rest = rest.slice(m[0].length)
    if (m[3] === '' && rest.length > 0) fail('labels without a comma between them')
  }
  return labels
}

/** The value of the one sample of `name` with exactly these labels (others may be absent), or undefined. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  const samples = [...families.values()].flatMap((f) => f.samples).filter((s) => s.name === name)
  const found = samples.filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value
}

/** The sum of the samples of `name` whose labels include these. */
export function sampleSum(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  return [...families.values()]
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0)
}
