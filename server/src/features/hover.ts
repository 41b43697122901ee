/** Hover: directive and section documentation from the catalog. */
import type { Hover } from 'vscode-languageserver-types';
import type { ConfigDocument } from '../syntax';
import type { FileContext } from '../model/context';

export function hoverAt(_doc: ConfigDocument, _offset: number, _context: FileContext): Hover | null {
  return null;
}
