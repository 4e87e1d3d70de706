// The harn-tools/2.0 catalog format. Generated from harness-gen-contract's Rust types by
// `cargo run -p harness-gen-cli -- artifacts`; do not edit.

export type JsonValue = number | string | boolean | null | Array<JsonValue> | { readonly [key: string]: JsonValue };

/** A JSON Schema (Draft 2020-12) document. */
export type JsonSchema = boolean | { readonly [keyword: string]: JsonValue };

/** A JSON Schema whose root is an object schema. */
export type ObjectJsonSchema = { readonly type: "object"; readonly [keyword: string]: JsonValue };

export type Catalog = { 
/**
 * Always `harn-tools/2.0`.
 */
schema_version: SchemaVersion, 
/**
 * What the registry is.
 */
info?: Info, 
/**
 * Parent-command metadata for the CLI tree.
 */
cli?: CliTree, 
/**
 * The tools, in registry order.
 */
tools: Array<Entry>, 
/**
 * Named schemas that tool schemas reference as `#/components/schemas/<name>`.
 */
components?: Components, };

export type Info = { 
/**
 * The catalog's name (for a generated crate: the kebab-case API title).
 */
name: NonBlank, 
/**
 * The version of the API or tool set the catalog describes.
 */
version?: NonBlank, 
/**
 * What the tools are for, as one text.
 */
description?: NonBlank, };

export type Components = { 
/**
 * Schemas by name.
 */
schemas: { readonly [name: string]: JsonSchema }, };

export type CliTree = { 
/**
 * Titles, descriptions and aliases of parent (non-runnable) commands.
 */
commands: Array<CommandSpec>, };

export type CommandSpec = { 
/**
 * The parent command's path.
 */
command: CommandPath, 
/**
 * Short title.
 */
title?: NonBlank, 
/**
 * Longer help text.
 */
description?: NonBlank, 
/**
 * Other spellings of the last segment.
 */
aliases?: Array<CommandSegment>, 
/**
 * Hidden from help.
 */
hidden?: boolean, 
/**
 * Order in help.
 */
display_order?: number, };

export type Entry = { 
/**
 * The tool's name: unique in the catalog, the name MCP clients and agents call it by.
 */
name: NonBlank, 
/**
 * A short human-readable title for listings.
 */
title?: NonBlank, 
/**
 * What the tool does and when to use it, for people and models.
 */
description?: NonBlank, 
/**
 * The JSON Schema (2020-12) of the tool's input: an object schema; `$ref`s point into `components`.
 */
inputSchema: ObjectSchema, 
/**
 * The JSON Schema of a successful result; absent when the tool returns nothing structured.
 */
outputSchema?: SchemaDoc, 
/**
 * The JSON Schema of the application errors the tool declares (what it may fail with on purpose, as opposed to runtime failures).
 */
errorSchema?: SchemaDoc, 
/**
 * Advisory hints for clients (MCP tool annotations): they describe, they do not enforce.
 */
annotations?: Annotations, 
/**
 * Icons clients may show next to the tool.
 */
icons?: Array<Icon>, 
/**
 * Whether the tool runs as an MCP task (long-running, polled).
 */
execution?: Execution, 
/**
 * Which projections may expose the tool.
 */
governance: Governance, 
/**
 * Where the tool sits in the command-line tree and how its arguments are spelled.
 */
cli: ToolCli, 
/**
 * A group the tool belongs to (for generated tools: the OpenAPI tag), for listing and search.
 */
namespace?: NonBlank, 
/**
 * Whether agents leave the tool out of the initial listing and find it through search.
 */
deferLoading: boolean, 
/**
 * Where the tool came from and how a call reaches it.
 */
source?: Source, 
/**
 * Execution classification (kind of work, strongest side effect), separate from the advisory hints.
 */
policy?: Policy, 
/**
 * Open metadata by namespaced key; `com.harnlang/toolContract` is reserved for the contract's own projection.
 */
_meta?: { readonly [key: string]: JsonValue }, };

export type Annotations = { 
/**
 * A title for clients that prefer the annotation's over the tool's.
 */
title?: NonBlank, 
/**
 * The tool does not change its environment.
 */
readOnlyHint?: boolean, 
/**
 * A change the tool makes may destroy something (meaningful when not read-only).
 */
destructiveHint?: boolean, 
/**
 * Repeating a call with the same input has no further effect (meaningful when not read-only).
 */
idempotentHint?: boolean, 
/**
 * The tool reaches entities outside a closed, known set (e.g. the internet).
 */
openWorldHint?: boolean, };

export type Icon = { 
/**
 * The icon's URL (`https:` or `data:`).
 */
src: NonBlank, 
/**
 * Its media type, when the URL does not say.
 */
mimeType?: NonBlank, 
/**
 * The sizes it is drawn for (`48x48`, `any`).
 */
sizes?: Array<NonBlank>, 
/**
 * The color theme it is made for.
 */
theme?: IconTheme, };

export type IconTheme = "light" | "dark";

export type Execution = { 
/**
 * Whether a call may, must or must not run as a task.
 */
taskSupport: TaskSupport, };

export type TaskSupport = "forbidden" | "optional" | "required";

export type Governance = { 
/**
 * Non-empty, unique, in canonical order.
 */
audiences: Audiences, };

export type Audience = "cli" | "mcp" | "catalog" | "dashboard" | "agent";

export type ToolCli = { 
/**
 * The command path, e.g. `["pets", "list"]`.
 */
command: CommandPath, 
/**
 * Other spellings of the last segment.
 */
aliases?: Array<CommandSegment>, 
/**
 * Hidden from help, still callable.
 */
hidden: boolean, 
/**
 * Token metadata per input property; a property without an entry becomes `--kebab-name`.
 */
arguments?: { [key in string]: ArgumentSpec }, };

export type ArgumentSpec = { 
/**
 * Long option name, without dashes; defaults to the property name in kebab-case.
 */
long?: OptionName, 
/**
 * One-character short option.
 */
short?: string, 
/**
 * Other long names.
 */
aliases?: Array<OptionName>, 
/**
 * Positional index instead of an option.
 */
position?: number, 
/**
 * Placeholder shown in help.
 */
value_name?: NonBlank, 
/**
 * Help text; defaults to the property's description.
 */
help?: NonBlank, 
/**
 * Completion hint.
 */
value_hint?: ValueHint, 
/**
 * Boolean spelling.
 */
boolean_style?: BooleanStyle, 
/**
 * The option may be given several times (array properties).
 */
repeatable?: boolean, 
/**
 * Hidden from help.
 */
hidden?: boolean, 
/**
 * Advisory completion candidates; they do not constrain the value.
 */
completions?: Array<string>, 
/**
 * Order in help.
 */
display_order?: number, 
/**
 * Help heading the argument is listed under.
 */
help_group?: NonBlank, };

export type BooleanStyle = "value" | "set_true" | "set_false";

export type ValueHint = "file" | "directory" | "path" | "url" | "email" | "username" | "hostname" | "command" | "other";

export type Source = { 
/**
 * The kind of source: `openapi` for an operation of an OpenAPI description; other kinds are
 * open to other producers.
 */
kind: NonBlank, 
/**
 * The source's own identifier of the tool (for OpenAPI: the `operationId`).
 */
id?: NonBlank, 
/**
 * How a call travels. For `kind: "openapi"` it is the operation's `Binding` (checked when the
 * catalog is read); for other kinds an object the format does not interpret.
 */
binding?: SourceBinding, };

export type SourceBinding = Binding | { readonly [key: string]: JsonValue };

export type Binding = { 
/**
 * The HTTP method.
 */
method: Method, 
/**
 * The path template, relative to the server URL, e.g. `/pets/{petId}`.
 */
path: string, 
/**
 * Where each input property that is a parameter travels, in input-schema order.
 */
parameters?: Array<ParamBinding>, 
/**
 * The request body, when the operation takes one.
 */
body?: BodyBinding, 
/**
 * The success response whose body is the tool's output; absent when no success response
 * has content (the output is then `null`).
 */
response?: ResponseBinding, 
/**
 * Declared error responses with JSON bodies, most specific status first: each is one
 * variant of the tool's error schema.
 */
errors?: Array<ErrorBinding>, 
/**
 * Security alternatives: the call is authorized by the first alternative whose schemes all
 * have credentials; an alternative lists scheme names that apply together, and an empty
 * alternative means the call may go anonymously.
 */
security: Array<Array<string>>, 
/**
 * The request header that carries an idempotency key (a declared `Idempotency-Key`
 * header parameter, or `x-harn.idempotencyKey`): the client sends one fresh random key per
 * call, the same on each of its attempts (unless the input gives one), which makes the
 * call safe to retry whatever its method.
 */
idempotencyKey?: string, 
/**
 * How the reply continues on a next page, for an operation that lists in pages.
 */
pagination?: Pagination, 
/**
 * How the success response streams server-sent events, for an operation that offers
 * `text/event-stream` (its streaming call; `response` stays the buffered one, if any).
 */
events?: EventStream, 
/**
 * How an array inside a `deepObject` value is written (query parameters and form-body
 * properties): `a[0]=x` (the default) or `a[]=x` (`x-harn.deepObjectArrays`).
 */
deepObjectArrays?: DeepArrays, };

export type Method = "GET" | "PUT" | "POST" | "DELETE" | "OPTIONS" | "HEAD" | "PATCH" | "TRACE" | "QUERY";

export type ParamBinding = { 
/**
 * The input property whose value it carries.
 */
property: string, 
/**
 * Where it goes.
 */
in: ParamIn, 
/**
 * Its name on the wire (path variable, query key, header or cookie name).
 */
name: string, 
/**
 * How its value is serialized (the document's, or the location's default).
 */
style: Style, 
/**
 * Whether arrays and objects spread into one pair per item (the document's, or `true`
 * exactly for `form`).
 */
explode: boolean, 
/**
 * Whether the call must carry it (path parameters always).
 */
required: boolean, 
/**
 * Whether RFC 3986 reserved characters go unencoded (query only).
 */
allowReserved?: boolean, 
/**
 * For a parameter declared with `content` instead of `schema`: the media type its value is
 * serialized as (JSON media types send the value as JSON text).
 */
contentType?: string, };

export type ParamIn = "path" | "query" | "header" | "cookie";

export type Style = "simple" | "form" | "label" | "matrix" | "spaceDelimited" | "pipeDelimited" | "deepObject";

export type BodyBinding = { 
/**
 * The input property holding it (`body` unless a parameter took that name).
 */
property: string, 
/**
 * The media type sent, chosen among those the operation accepts.
 */
contentType: string, 
/**
 * How the value is encoded for that media type.
 */
encoding: Encoding, 
/**
 * Whether the call must carry it.
 */
required: boolean, 
/**
 * The other media types the operation accepts, for documentation.
 */
alternatives?: Array<string>, 
/**
 * How the document says each property of a form or multipart body is encoded (its
 * `encoding` entry, else for multipart a property's `contentMediaType`), by property;
 * properties not listed take OpenAPI's defaults.
 */
parts?: Array<PartBinding>, };

export type PartBinding = { 
/**
 * The body's property it describes (its name in the form).
 */
property: string, 
/**
 * The part's media type (`image/png`, `application/json`, or a range like `image/*`); in
 * a form body, a JSON media type sends the value as JSON text.
 */
contentType?: string, 
/**
 * How a form body writes the value (`form` when absent).
 */
style?: Style, 
/**
 * Whether a form body spreads arrays and objects into one pair per item (`true` exactly
 * for `form` when absent).
 */
explode?: boolean, 
/**
 * Whether a form body leaves RFC 3986 reserved characters unencoded.
 */
allowReserved?: boolean, };

export type Encoding = "json" | "form" | "multipart" | "text" | "bytes";

export type ResponseBinding = { 
/**
 * The response's key in the document.
 */
status: StatusKey, 
/**
 * The media type asked for (`Accept`).
 */
contentType: string, 
/**
 * How the body is read: JSON is parsed, text kept as a string, anything else base64.
 */
encoding: Encoding, };

export type ErrorBinding = { 
/**
 * The response's key in the document; the error variant's `kind` is `http_<key>`.
 */
status: StatusKey, 
/**
 * The JSON media type its body is read as.
 */
contentType: string, };

export type Pagination = { 
/**
 * How the next page is asked for.
 */
kind: PageKind, 
/**
 * The input property the next page sets: the cursor (`cursor`), the offset of its first
 * item (`offset`) or its number (`page`). None for `link`, whose next URL says everything.
 */
param?: string, 
/**
 * A JSON pointer to the page's items (an array) in the reply; empty when the reply is
 * the array.
 */
items: string, 
/**
 * `cursor`: a JSON pointer to the next cursor in the reply. `link`: to the next page's
 * URL in the reply; without it, the `Link` header's `rel="next"` (RFC 8288).
 */
next?: string, 
/**
 * `cursor` without `next`: a JSON pointer into the last item to the value that is the
 * next cursor (Stripe: `/id`, sent as `starting_after`).
 */
lastItem?: string, 
/**
 * A JSON pointer to a boolean in the reply that is false (or absent) on the last page.
 */
hasMore?: string, 
/**
 * A JSON pointer to a boolean in the reply that is true on the last page (Svix's `done`).
 */
done?: string, };

export type PageKind = "cursor" | "offset" | "page" | "link";

export type EventStream = { 
/**
 * The request body's boolean property that asks for the stream (OpenAI's `stream`): the
 * streaming call sends it as `true`.
 */
flag?: string, 
/**
 * For an operation whose server answers JSON or the stream by the request's `Accept`
 * (no body flag): the tool input's boolean property that asks for the stream. It is not
 * sent; the streaming call asks with `Accept: text/event-stream`, and a plain call
 * refuses an input that sets it.
 */
select?: string, 
/**
 * The data that ends the stream, never an event itself (OpenAI's `[DONE]`).
 */
sentinel?: string, };

export type DeepArrays = "indexed" | "brackets";

export type StatusKey = `${1 | 2 | 3 | 4 | 5}${number}` | `${1 | 2 | 3 | 4 | 5}XX` | "default";

export type Policy = { 
/**
 * What kind of work the tool does.
 */
kind: PolicyKind, 
/**
 * The strongest side effect it may have.
 */
side_effect_level: SideEffectLevel, };

export type PolicyKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";

export type SideEffectLevel = "none" | "read_only" | "workspace_write" | "process_exec" | "network" | "desktop_control";

export type SchemaVersion = "harn-tools/2.0";

export type NonBlank = string;

export type CommandPath = Array<string>;

export type CommandSegment = string;

export type OptionName = string;

export type MetaKey = string;

export type Audiences = Array<Audience>;

export type SchemaDoc = JsonSchema;

export type ObjectSchema = ObjectJsonSchema;
