/**
 * The workbook backend's row scanner and cell reader, written by hand rather than as regular
 * expressions, on rows as other programs write them. The common cells take a short path (one pass over the
 * attributes; a lone `<v>` or a plain inline text read without searching for each element), and a read's texts
 * are strings of their own: every shape of cell reads the same whichever path it takes, generated rows against
 * the values they were made from.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CellValue } from '../../src/sheets/port.ts'
import { cellContent, parseRow } from '../../src/sheets/workbook/sheet-xml.ts'
import { OwnStrings, readTab, rowValues, type ReadContext } from '../../src/sheets/workbook/tab-read.ts'

describe('parseRow', () => {
  it('reads cells whatever the attribute order, quotes, prefix or spacing', () => {
    const row = parseRow(
      `<x:row spans='1:3' r='7'><x:c s="2" r="B7" t="s"><x:v>4</x:v></x:c><x:c r = "D7"/><x:c\tt="inlineStr" r="E7"><x:is><x:t>a &lt; b</x:t></x:is></x:c></x:row>`,
      0,
    )
    expect(row.number).toBe(7)
    expect(row.cells.map((cell) => [cell.column, cell.type, cell.style])).toEqual([
      [1, 's', 2],
      [3, undefined, undefined],
      [4, 'inlineStr', undefined],
    ])
    expect(cellContent(row.cells[0]!).value).toBe('4')
    expect(cellContent(row.cells[2]!).inline).toBe('a < b')
  })

  it('numbers a row and its cells without references after the ones before', () => {
    const row = parseRow('<row><c><v>1</v></c><c t="b"><v>0</v></c></row>', 4)
    expect(row.number).toBe(5)
    expect(row.cells.map((cell) => cell.column)).toEqual([0, 1])
  })

  it('does not take an attribute whose name ends in r or s for r or s', () => {
    const row = parseRow('<row r="3" customHeight="1" xr:r="9"><c xr:s="5" ss="6" r="C3"><v>1</v></c></row>', 0)
    expect(row.number).toBe(3)
    expect(row.cells[0]).toMatchObject({ column: 2, style: undefined })
  })
})

describe('a row reads the same whichever path its cells take', () => {
  const SHARED = ['User', 'Fixed login bug', 'a & b < c\r']
  const CONTEXT: ReadContext = { sharedStrings: SHARED, isDateStyle: (style) => style === 7 }

  /** Cell text as written in XML, and what it reads as. */
  const TEXTS: Array<[string, string]> = [
    ['plain', 'plain'],
    ['a &amp; b &lt; c &gt; d', 'a & b < c > d'],
    ['line_x000D_end', 'line\rend'],
    ['x&#13;y&#10;z', 'x\ry\nz'],
    ['typed _x005F_x0041_', 'typed _x0041_'],
    ['Café ☕ 😀 東京', 'Café ☕ 😀 東京'],
    ['an r="A1" and &lt;c r="B1"&gt;', 'an r="A1" and <c r="B1">'],
    ['a longer text that is more than thirteen characters', 'a longer text that is more than thirteen characters'],
  ]

  /** What a generated cell holds, and its XML. */
  interface Cell {
    xml: (prefix: string, reference: string) => string
    value: CellValue
  }

  const attribute = fc.record({ quote: fc.constantFrom('"', "'"), space: fc.constantFrom('', ' ', '\t') })

  function attrs(list: Array<[string, string]>, shape: { quote: string; space: string }, extra: boolean): string {
    const all = extra ? [...list, ['xr:r', '9'] as [string, string], ['cm', '1'] as [string, string]] : list
    return all.map(([name, value]) => ` ${name}${shape.space}=${shape.space}${shape.quote}${value}${shape.quote}`).join('')
  }

  const text = fc.constantFrom(...TEXTS)

  const cell: fc.Arbitrary<Cell> = fc.oneof(
    fc
      .record({ n: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }), shape: attribute, extra: fc.boolean() })
      .map(({ n, shape, extra }): Cell => ({
        xml: (p, r) => `<${p}c${attrs([['r', r]], shape, extra)}><${p}v>${String(n)}</${p}v></${p}c>`,
        value: Object.is(n, -0) ? 0 : n,
      })),
    fc.record({ b: fc.boolean(), shape: attribute }).map(({ b, shape }): Cell => ({
      xml: (p, r) =>
        `<${p}c${attrs(
          [
            ['t', 'b'],
            ['r', r],
          ],
          shape,
          false,
        )}><${p}v>${b ? 1 : 0}</${p}v></${p}c>`,
      value: b,
    })),
    fc.record({ t: text, preserve: fc.boolean(), shape: attribute, style: fc.nat(20) }).map(({ t, preserve, shape, style }): Cell => ({
      xml: (p, r) =>
        `<${p}c${attrs(
          [
            ['s', String(style)],
            ['t', 'inlineStr'],
            ['r', r],
          ],
          shape,
          false,
        )}><${p}is><${p}t${preserve ? ' xml:space="preserve"' : ''}>${t[0]}</${p}t></${p}is></${p}c>`,
      value: t[1],
    })),
    fc.record({ a: text, b: text, shape: attribute }).map(({ a, b, shape }): Cell => ({
      xml: (p, r) =>
        `<${p}c${attrs(
          [
            ['r', r],
            ['t', 'inlineStr'],
          ],
          shape,
          false,
        )}><${p}is><${p}r><${p}t>${a[0]}</${p}t></${p}r><${p}r><${p}rPr><${p}b/></${p}rPr><${p}t>${b[0]}</${p}t></${p}r></${p}is></${p}c>`,
      value: a[1] + b[1],
    })),
    fc.record({ i: fc.nat(SHARED.length - 1), shape: attribute }).map(({ i, shape }): Cell => ({
      xml: (p, r) =>
        `<${p}c${attrs(
          [
            ['r', r],
            ['t', 's'],
          ],
          shape,
          true,
        )}><${p}v>${i}</${p}v></${p}c>`,
      value: SHARED[i]!,
    })),
    fc.record({ style: fc.nat(20), shape: attribute }).map(({ style, shape }): Cell => ({
      xml: (p, r) =>
        `<${p}c${attrs(
          [
            ['r', r],
            ['s', String(style)],
          ],
          shape,
          false,
        )}/>`,
      value: null,
    })),
    fc.constant<Cell>({ xml: (p, r) => `<${p}c r="${r}" t="inlineStr"><${p}is><${p}t></${p}t></${p}is></${p}c>`, value: null }),
    // A date format: read to the millisecond.
    fc.constant<Cell>({ xml: (p, r) => `<${p}c r="${r}" s="7"><${p}v>0.60000000000218279</${p}v></${p}c>`, value: 0.6 }),
    fc.constant<Cell>({ xml: (p, r) => `<${p}c r="${r}" t="e"><${p}v>#N/A</${p}v></${p}c>`, value: '#N/A' }),
  )

  const COLUMNS = 'ABCDEFGHIJKL'

  it('generated rows (attribute order, quotes, spacing, prefixes, gaps) read as the values they were made from', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(cell, { nil: undefined }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom('', 'x:'),
        fc.integer({ min: 2, max: 1_048_576 }),
        (cells, prefix, number) => {
          const xml = `<${prefix}row r="${number}">${cells
            .map((c, i) => (c === undefined ? '' : c.xml(prefix, `${COLUMNS[i]}${number}`)))
            .join('')}</${prefix}row>`
          const expected: CellValue[] = cells.map((c) => c?.value ?? null)
          while (expected.length > 0 && expected[expected.length - 1] === null) expected.pop()
          const row = parseRow(xml, 0)
          expect(row.number).toBe(number)
          expect(rowValues(row.cells, row.number, CONTEXT, new Map(), new OwnStrings())).toEqual(expected)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('reads shared formulas, a formula with a boolean result, and odd attribute values as before', () => {
    const row = parseRow(
      '<row r="4"><c r="A4"><f t="shared" ref="A4:A6" si="0">B4*2</f><v>2</v></c><c r="B4" t="b"><f>TRUE()</f><v>1</v></c>' +
        '<c r="C4" s=" 3"><v>5</v></c><c r="D4" t="str"><v>x_x000D_</v></c><c r="E4" s="12345678901"><v>1</v></c></row>',
      0,
    )
    expect(row.cells.map((c) => c.style)).toEqual([undefined, undefined, 3, undefined, 12345678901])
    expect(rowValues(row.cells, 4, CONTEXT, new Map())).toEqual(['=B4*2', true, 5, 'x\r', 1])
  })

  it('a whole tab: rows out of order, empty rows, and texts repeated in more rows than a column shares', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => i + 2)
    const user = (i: number) => `user number ${i % 7} of the team`
    const key = (i: number) => `a08ff49b-6f77-4632-a16c-43069c43a8c3/${i}`
    const rowXml = (n: number) =>
      n % 1000 === 0
        ? `<row r="${n}"/>`
        : `<row r="${n}"><c r="A${n}" t="inlineStr"><is><t>${user(n)}</t></is></c><c r="C${n}" t="inlineStr"><is><t>${key(n)}</t></is></c></row>`
    // The first rows come last: a sheet may list them in any order.
    const order = [...rows.slice(10), ...rows.slice(0, 10)]
    async function* chunks(): AsyncGenerator<string> {
      yield '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row>'
      for (let i = 0; i < order.length; i += 333)
        yield order
          .slice(i, i + 333)
          .map(rowXml)
          .join('')
      yield '</sheetData></worksheet>'
    }
    const tab = await readTab('T', chunks(), CONTEXT)
    expect(tab.header).toEqual(['User'])
    expect(tab.rows).toEqual(rows.map((n) => (n % 1000 === 0 ? [] : [user(n), null, key(n)])))
    expect(tab.gridRowCount).toBe(5001)
  })
})
