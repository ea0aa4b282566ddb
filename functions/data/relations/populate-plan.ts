// Reads `populate` (names, `*`, dotted paths) and its per-relation controls (`<rel>_sort`,
// `<rel>_order`, `<rel>_limit`, `<rel>_offset`) into a tree of relations to attach. Unknown names
// are 400 naming them; paths deeper than the configured limit are refused.
import { MAX_PAGE_SIZE } from '../records/query/list-query.ts';
import { queryError } from '../records/query/query-error.ts';
import type { FieldDescriptor } from '../tables/table-descriptor.ts';
import { isToOne, type AppRelations, type Relation, type RelationTable } from './relation-graph.ts';

/** Related records per parent when `<rel>_limit` is not given: a list is never unbounded. */
export const DEFAULT_RELATED_LIMIT = 100;

export interface PopulateNode {
  /** The dotted path as the client wrote it, for the controls and for messages. */
  path: string;
  relation: Relation;
  /** Where the related record(s) go: the key field (forward) or the relation's name. */
  key: string;
  sort: Array<{ field: FieldDescriptor; descending: boolean }>;
  /** `<rel>_order`: the direction of `_sort` terms without a `-`, or of the key when there is no `_sort`. */
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  children: PopulateNode[];
}

const CONTROL = /^(.+)_(sort|order|limit|offset)$/;

/** The populate parameters of one request, collected while the query is parsed. */
export class PopulateRequest {
  private populate: string | undefined;
  private readonly controls = new Map<string, { path: string; kind: string; raw: string }>();

  constructor(
    private readonly relations: AppRelations,
    private readonly base: RelationTable,
  ) {}

  /** Takes `populate` and the controls of a relation of the base table; leaves every field name to the filters. */
  claims(key: string, raw: string): boolean {
    if (key === 'populate') {
      this.populate = raw;
      return true;
    }
    const match = CONTROL.exec(key);
    if (match === null || this.base.descriptor.fields.some((field) => field.name === key)) return false;
    const first = match[1]!.split('.')[0]!;
    if (!this.relations.has(this.base, first)) return false;
    this.controls.set(key, { path: match[1]!, kind: match[2]!, raw });
    return true;
  }

  get requested(): boolean {
    return this.populate !== undefined || this.controls.size > 0;
  }

  /** The tree to populate; throws 400 for unknown names, too deep paths and stray controls. */
  plan(maxDepth: number): PopulateNode[] {
    const roots: PopulateNode[] = [];
    if (this.populate !== undefined) {
      const items = this.populate.split(',').map((item) => item.trim());
      if (items.some((item) => item === ''))
        throw queryError('populate', 'expects a comma-separated list of relationship names without empty items');
      const unknown: string[] = [];
      for (const item of items) {
        if (item === '*') {
          for (const relation of this.relations.all(this.base)) this.attach(roots, [relation.name], relation.name, unknown);
          continue;
        }
        const segments = item.split('.');
        if (segments.length > maxDepth) throw queryError('populate', `"${item}" is nested deeper than ${maxDepth} levels`);
        this.attach(roots, segments, item, unknown);
      }
      if (unknown.length > 0)
        throw queryError(
          'populate',
          `unknown relationship${unknown.length === 1 ? '' : 's'} ${unknown.map((name) => `"${name}"`).join(', ')}`,
        );
    }
    for (const [key, control] of this.controls) {
      const node = findNode(roots, control.path);
      if (node === undefined) throw queryError(key, `applies to a populated relationship; add "${control.path}" to populate`);
      applyControl(node, control.kind, control.raw, key);
    }
    return roots;
  }

  private attach(level: PopulateNode[], segments: string[], item: string, unknown: string[]): void {
    let table = this.base;
    let nodes = level;
    let path = '';
    for (const name of segments) {
      path = path === '' ? name : `${path}.${name}`;
      let relation: Relation;
      try {
        relation = this.relations.resolve(table, name, 'populate');
      } catch (error) {
        if (this.relations.has(table, name)) throw error;
        unknown.push(path === item ? item : `${item} (at "${name}")`);
        return;
      }
      const key = relation.kind === 'forward' ? relation.hops[0].baseField.name : relation.name;
      let node = nodes.find((candidate) => candidate.relation === relation);
      if (node === undefined) {
        node = { path, relation, key, sort: [], order: 'asc', limit: DEFAULT_RELATED_LIMIT, offset: 0, children: [] };
        nodes.push(node);
      }
      nodes = node.children;
      table = relation.target;
    }
  }
}

function findNode(nodes: PopulateNode[], path: string): PopulateNode | undefined {
  for (const node of nodes) {
    if (node.path === path) return node;
    const inner = findNode(node.children, path);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

function applyControl(node: PopulateNode, kind: string, raw: string, parameter: string): void {
  if (isToOne(node.relation))
    throw queryError(parameter, `"${node.path}" leads to one record; sort, order, limit and offset apply to lists`);
  const target = node.relation.target;
  switch (kind) {
    case 'sort':
      node.sort = raw.split(',').map((item) => {
        const descending = item.trim().startsWith('-');
        const name = item.trim().replace(/^-/, '');
        const field = target.descriptor.fields.find((candidate) => candidate.name === name);
        if (field === undefined) throw queryError(parameter, `unknown field "${name}" of table "${target.name}"`);
        return { field, descending };
      });
      return;
    case 'order': {
      const order = raw.toLowerCase();
      if (order !== 'asc' && order !== 'desc') throw queryError(parameter, 'expects asc or desc');
      node.order = order;
      return;
    }
    case 'limit':
      node.limit = wholeNumber(parameter, raw, 1, MAX_PAGE_SIZE);
      return;
    default:
      node.offset = wholeNumber(parameter, raw, 0, 1_000_000_000);
  }
}

function wholeNumber(parameter: string, raw: string, minimum: number, maximum: number): number {
  if (!/^\d{1,10}$/.test(raw.trim())) throw queryError(parameter, 'expects a whole number');
  const value = Number(raw.trim());
  if (value < minimum || value > maximum) throw queryError(parameter, `must be between ${minimum} and ${maximum}`);
  return value;
}
