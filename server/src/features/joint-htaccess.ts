/**
 * A server configuration and the `.htaccess` files httpd reads in it, rewritten as one: the classic
 * 2.2 layout of a private site with a public folder (a server `<Directory>` with `Deny from all` and
 * one client allowed, a `.htaccess` below with `Allow from all`) has no exact rewrite of either side
 * alone, since each side's host rules are what keeps the other from one. A `.htaccess` file that is
 * rewritten in the same run as the server config's files, that every host reading it lets use
 * `Require` (AllowOverride AuthConfig), that sits where every `.htaccess` file around it was read,
 * and that httpd reaches by no other path than its own is planned with the server config; each
 * file then makes its part of the rewrite of the two, the `.htaccess` file only where the server
 * config's files made theirs (rewrite keys).
 *
 * Used by `apacheconf fix --root` and `check --root` (cli.ts) and by the editor's "Migrate the
 * whole configuration" (lsp/commands.ts): both read the disk through the hosts given here.
 */
import { applyEdits, parse, type ConfigDocument, type OffsetEdit } from '../syntax';
import { plansInConfiguration, type ConfigurationView } from '../access';
import { rewritableWithServer, viewWithHtaccess, type HtaccessReader } from './htaccess-context';
import { dirname, isAbsolutePath, normalizePath } from './paths';
import { servedPathOf, type LinkHost } from './served-paths';

export type { LinkHost };

/** A configuration as one document, each line with the real path of the file it comes from. */
export interface RealConfiguration {
  doc: ConfigDocument;
  real: Array<{ path: string; line: number }>;
}

/** Folders looked through for symbolic links under a directory whose `.htaccess` files were read. */
const MAX_LINK_WALK = 5000;

/**
 * The joint plans of one configuration: what is worked out once for it (the view with its
 * `.htaccess` files spliced in, whether each file may be planned with the server config).
 */
export class JointPlanner {
  private spliced: ConfigurationView | undefined;
  private readonly jointable = new Map<string, boolean>();

  constructor(
    readonly configuration: RealConfiguration,
    /** Reads the `.htaccess` files as they are before the run (the first view is kept). */
    private readonly reader: HtaccessReader,
    private readonly links: LinkHost,
  ) {}

  /** The configuration with every `.htaccess` file httpd reads in it spliced in, all kept as they are. */
  withHtaccess(): ConfigurationView {
    return (this.spliced ??= viewWithHtaccess({ doc: this.configuration.doc, origins: this.configuration.real, path: '', root: '' }, this.reader));
  }

  /** The `.htaccess` files spliced in (as the configuration names their folders). */
  htaccessFiles(): ReadonlySet<string> {
    return this.withHtaccess().kept ?? new Set();
  }

  /**
   * The view a server-config file at real path `path` is planned in: the `.htaccess` files of
   * `together` (real paths of the files rewritten in the same run) that may be planned with the
   * server config are rewritten with it; the others stay as they are.
   */
  view(path: string, root: string, together: ReadonlySet<string>): ConfigurationView {
    const w = this.withHtaccess();
    const joint = new Set([...(w.kept ?? [])].filter((p) => together.has(this.links.realPath(p)) && this.isJointable(p)));
    const kept = w.kept ? new Set([...w.kept].filter((p) => !joint.has(p))) : undefined;
    const keptReal = kept ? new Set([...kept].map((p) => this.links.realPath(p))) : undefined;
    // (The spliced files' lines name them as the configuration does, which may not be the real path.)
    const alone = new Set([...together].filter((p) => !keptReal?.has(p)));
    for (const p of joint) alone.add(p);
    return { ...w, ...(kept ? { kept } : {}), path, root: root.slice(root.lastIndexOf('/') + 1), together: alone };
  }

  /**
   * A `.htaccess` file's part (real path `real`, text `text`) of the rewrites planned with the
   * server config, as its new text and edits: null when it is not planned with it, or its lines
   * get no rewrite there. `made` holds the rewrite keys whose parts in the server config's files
   * were made: half of a rewrite is not exact, so the others are left.
   */
  part(real: string, text: string, root: string, together: ReadonlySet<string>, made: ReadonlySet<string>): { text: string; applied: number; edits: OffsetEdit[] } | null {
    const w = this.view(real, root, together);
    const spliced = [...this.htaccessFiles()].find((p) => this.links.realPath(p) === real);
    if (!spliced || w.kept?.has(spliced)) return null;
    const plans = plansInConfiguration({ ...w, path: spliced }, parse(text));
    if (!plans) return null;
    const edits = new Map<string, OffsetEdit>();
    let sections = 0;
    for (const sp of new Set(plans.values())) {
      if (!sp.exact || (sp.partsIn?.length && !made.has(sp.rewriteKey ?? ''))) continue;
      sections++;
      for (const e of sp.exact.edits) edits.set(`${e.start}:${e.end}:${e.newText}`, e);
    }
    if (!sections) return null;
    try {
      const list = [...edits.values()].sort((a, b) => a.start - b.start || a.end - b.end);
      return { text: applyEdits(text, list), applied: sections, edits: list };
    } catch {
      return null;
    }
  }

  /**
   * Whether the `.htaccess` file `p` may be planned with the server config: under a directory whose
   * files all went in (its parents' and subdirectories' files, which the one plan must read as they
   * are or rewrite with it), every host reading it allows AuthConfig, and no other path reaches it.
   */
  private isJointable(p: string): boolean {
    let r = this.jointable.get(p);
    if (r === undefined) {
      const known = [...(this.withHtaccess().htaccessKnown ?? [])].map((d) => (d.length > 1 ? d.replace(/\/+$/, '') : d));
      const inKnown = known.some((d) => p.startsWith(d === '/' ? '/' : d + '/'));
      r = inKnown && rewritableWithServer(this.configuration.doc, p) && !reachedOtherwise(this.configuration.doc, p, known, this.links);
      this.jointable.set(p, r);
    }
    return r;
  }
}

/**
 * Whether httpd may reach a `.htaccess` file's folder by another path than its own, which the
 * model does not follow (its `<Directory>` sections and AllowOverride are those of the path
 * reached): a DocumentRoot or Alias target that is a symbolic link into it or above it, a folder
 * linked to under the directory the files were read from, or mappings the model cannot place
 * (AliasMatch, ScriptAliasMatch, UserDir). A black-box run found an Alias through a link into the
 * folder answering 500 where the rewritten file's `Require valid-user` met no AuthType there.
 */
export function reachedOtherwise(doc: ConfigDocument, file: string, known: readonly string[], links: LinkHost): boolean {
  const folder = dirname(file);
  const related = (a: string, b: string) => a === b || a.startsWith(b === '/' ? '/' : b + '/') || b.startsWith(a === '/' ? '/' : a + '/');
  for (const d of doc.directives) {
    if (d.key === 'aliasmatch' || d.key === 'scriptaliasmatch' || (d.key === 'userdir' && !userDirOnDisk(d.args.map((a) => a.value)))) return true;
    const target = d.key === 'documentroot' ? d.args[0]?.value : d.key === 'alias' || d.key === 'scriptalias' ? d.args[1]?.value : undefined;
    if (!target || !isAbsolutePath(target)) continue;
    const plain = normalizePath(target);
    const real = links.realPath(plain);
    if (real !== plain && related(real, folder)) return true;
  }
  // Links anywhere in the served trees that reach the folder, or above it.
  const served = servedPathOf(doc, links.realPath(folder), links);
  if (served.kind === 'several' || served.kind === 'unknown' || (served.kind === 'one' && served.path !== folder)) return true;
  // Links under the directory whose files were read (the walk does not follow them).
  for (const top of known) {
    if (!folder.startsWith(top === '/' ? '/' : top + '/') && folder !== top) continue;
    const queue = [top];
    for (let i = 0; i < queue.length && i < MAX_LINK_WALK; i++) {
      const entries = links.entries(queue[i]);
      if (!entries) continue;
      for (const e of entries) {
        if (e.link) return true;
        if (e.directory) queue.push(queue[i] === '/' ? '/' + e.name : queue[i] + '/' + e.name);
      }
    }
    // Folders past the limit were not looked at: a link may be among them.
    if (queue.length > MAX_LINK_WALK) return true;
  }
  return false;
}

/**
 * Whether a `UserDir` line maps only to folders the configuration names: `disabled`/`enabled`
 * (with or without user names), absolute paths (`/usr/web`, or a pattern with a star for the name:
 * the user's folder is that path with the name put in, a path like any other on the disk) and redirects (`http://…`,
 * which reach no folder). A relative name (`public_html`) is looked up in each user's home folder,
 * which the configuration does not show.
 */
function userDirOnDisk(args: readonly string[]): boolean {
  const first = args[0]?.toLowerCase();
  if (first === 'disabled' || first === 'enabled') return true;
  return args.length > 0 && args.every((a) => a.startsWith('/') || /^[a-z][a-z0-9+.-]*:\/\//i.test(a));
}
