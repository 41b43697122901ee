export * from './ast';
export { parse, print, tokenize } from './parser';
export * from './position';
export * from './encoding';
export * from './edit';
export { directivesByKey, directivesNamed, hasDirective } from './query';
