export * from './ast';
export { parse, print, tokenize } from './parser';
export * from './position';
export * from './encoding';
export * from './edit';
export { detached, IdCache, lineTextIds, SpanCache, TextIds, trimEndChars, wordTable } from './strings';
export { directiveAt, directiveStartingAt, directivesNamed, directivesWhere, directivesWhereText, sectionOpenedAt, hasDirective, openTagText } from './query';
