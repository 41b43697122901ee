/** Where each rule is documented: the README's rule table, one anchor per id. */
export const RULES_DOCS_BASE = 'https://github.com/apacheconf/apacheconf#rule-';

export function ruleDocsUrl(id: string): string {
  return RULES_DOCS_BASE + id;
}
