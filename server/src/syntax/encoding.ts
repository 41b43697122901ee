/**
 * Reading and writing configuration files without ever changing a byte we did
 * not mean to change. Valid UTF-8 (with or without a BOM) is decoded as UTF-8;
 * anything else is decoded byte for byte as Latin-1 and marked, so callers can
 * analyse it but refuse to rewrite it.
 */

export interface DecodedFile {
  text: string;
  /** 'utf8' when the bytes are valid UTF-8, 'latin1' otherwise. */
  encoding: 'utf8' | 'latin1';
  /** True when the file starts with a UTF-8 byte order mark (kept in `text` as U+FEFF). */
  bom: boolean;
}

export function decode(bytes: Uint8Array): DecodedFile {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return { text, encoding: 'utf8', bom };
  } catch {
    return { text: Buffer.from(bytes).toString('latin1'), encoding: 'latin1', bom: false };
  }
}

export function encode(text: string, encoding: DecodedFile['encoding']): Buffer {
  return Buffer.from(text, encoding);
}
