/** The lock files Excel and LibreOffice leave beside a workbook they have open, as each writes them. */

/** An Excel owner file as Excel writes one: length, code-page name, 0x20 padding to 55, UTF-16 length and name, 165 bytes. */
export function excelOwnerFile(user: string): Uint8Array {
  const bytes = new Uint8Array(165).fill(0x20)
  bytes[0] = user.length
  Buffer.from(user, 'latin1').copy(bytes, 1)
  bytes[55] = user.length
  bytes[56] = 0
  Buffer.from(user, 'utf16le').copy(bytes, 57)
  return bytes
}

/** A LibreOffice lock file: its one entry as text. */
export const libreOfficeLock = (text: string): Uint8Array => Buffer.from(text, 'utf8')
