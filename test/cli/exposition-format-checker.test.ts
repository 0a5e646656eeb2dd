/**
 * The checker the metrics tests read /metrics and the textfile with (test/support/exposition-format.ts) refuses
 * what Prometheus' text format refuses, so a text it accepts is one node_exporter's collector reads; and it
 * accepts prom-client's own output, the same format.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { parseExposition, sampleValue } from '../support/exposition-format.ts'

const GOOD = `# HELP a_total Things.
# TYPE a_total counter
a_total{x="1"} 2
a_total{x="q\\"\\\\\\n"} 3
# TYPE b_seconds gauge
b_seconds 1.5e+09
`

describe('the exposition format checker', () => {
  it('reads samples, labels with escapes and values', () => {
    const families = parseExposition(GOOD)
    expect(sampleValue(families, 'a_total', { x: '1' })).toBe(2)
    expect(sampleValue(families, 'a_total', { x: 'q"\\\n' })).toBe(3)
    expect(sampleValue(families, 'b_seconds')).toBe(1.5e9)
  })

  it.each([
    ['no newline at the end', GOOD.slice(0, -1)],
    ['a sample before its TYPE', 'a_total 1\n# TYPE a_total counter\n'],
    ['a second TYPE', '# TYPE g gauge\n# TYPE g gauge\ng 1\n'],
    ['an unknown type', '# TYPE g meter\ng 1\n'],
    ['a counter without _total', '# TYPE things counter\nthings 1\n'],
    ['a gauge with a counter suffix', '# TYPE things_total gauge\nthings_total 1\n'],
    ['a value that is no number', '# TYPE g gauge\ng one\n'],
    ['a bad metric name', '# TYPE 1g gauge\n1g 1\n'],
    ['a bad label name', '# TYPE g gauge\ng{1x="a"} 1\n'],
    ['a bad escape in a label value', '# TYPE g gauge\ng{x="\\t"} 1\n'],
    ['an unquoted label value', '# TYPE g gauge\ng{x=a} 1\n'],
    ['a series twice', '# TYPE g gauge\ng{x="a"} 1\ng{x="a"} 2\n'],
    ['a family split by another', '# TYPE g gauge\ng{x="a"} 1\n# TYPE h gauge\nh 1\ng{x="b"} 2\n'],
    ['two samples on a line', '# TYPE g gauge\ng 1 g 2\n'],
  ])('refuses %s', (_, text) => {
    expect(() => parseExposition(text)).toThrow(/^Not the exposition format: /)
  })

  it("accepts prom-client's output, histograms included", async () => {
    const registry = new Registry()
    new Counter({ name: 'x_total', help: 'x "quoted" \\ back', labelNames: ['l'], registers: [registry] }).inc({ l: 'a\nb' })
    new Gauge({ name: 'y_seconds', help: 'y', registers: [registry] }).set(2)
    new Histogram({ name: 'z_seconds', help: 'z', buckets: [1], registers: [registry] }).observe(0.5)
    const families = parseExposition(await registry.metrics())
    expect(sampleValue(families, 'x_total', { l: 'a\nb' })).toBe(1)
    expect(sampleValue(families, 'z_seconds_bucket', { le: '+Inf' })).toBe(1)
  })
})
