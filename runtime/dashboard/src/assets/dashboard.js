// The dashboard's one script, served from the program itself: the index's tool filter, and on a
// tool's page the form made from its input schema, the checks that mirror the schema, the call
// and the rendering of its outcome. No third-party code; the page's Content-Security-Policy
// allows this file and requests to this server only.
'use strict';

(function () {
  const token = document.querySelector('meta[name="harness-token"]').content;

  // Descriptions are CommonMark in OpenAPI and catalogs (which allows HTML: Stripe's are
  // `<p>…</p>`): their inline links (to http and https only), code and strong emphasis are shown
  // as such, paragraphs as line breaks, other tags left out; built as elements, never read as
  // HTML.
  const INLINE = new RegExp([
    '\\[([^\\]]+)\\]\\((https?:\\/\\/[^\\s)]+)\\)', // 1, 2: [text](url)
    '`([^`]+)`', // 3: `code`
    '\\*\\*([^*]+)\\*\\*', // 4: **strong**
    '<a\\s+href="(https?:\\/\\/[^"]+)"[^>]*>([^<]*)<\\/a>', // 5, 6: <a href="url">text</a>
    '<code>([^<]*)<\\/code>', // 7: <code>code</code>
    '<\\/p>\\s*<p>|<br\\s*\\/?>', // a paragraph or line break
    '<\\/?[a-zA-Z][^<>]*>', // any other tag
  ].join('|'), 'g');
  function inline(text) {
    const out = document.createDocumentFragment();
    let at = 0;
    for (const m of text.matchAll(INLINE)) {
      out.append(text.slice(at, m.index));
      const link = (href, words) => el('a', { href, rel: 'noopener noreferrer', target: '_blank', text: words });
      if (m[1] !== undefined) out.append(link(m[2], m[1]));
      else if (m[3] !== undefined) out.append(el('code', { text: m[3] }));
      else if (m[4] !== undefined) out.append(el('strong', { text: m[4] }));
      else if (m[5] !== undefined) out.append(link(m[5], m[6]));
      else if (m[7] !== undefined) out.append(el('code', { text: m[7] }));
      else if (m[0].startsWith('</p') || m[0].startsWith('<br')) out.append('\n');
      at = m.index + m[0].length;
    }
    out.append(text.slice(at));
    return out;
  }
  for (const node of document.querySelectorAll('.description, .summary')) node.replaceChildren(inline(node.textContent));

  // --- The index: find a tool by any word of its name, title, tags or description.
  const filter = document.getElementById('tool-filter');
  if (filter) {
    const count = document.getElementById('tool-count');
    filter.addEventListener('input', () => {
      const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      for (const card of document.querySelectorAll('[data-tool-search]')) {
        const hit = words.every((w) => card.dataset.toolSearch.includes(w));
        card.hidden = !hit;
        if (hit) shown += 1;
      }
      for (const group of document.querySelectorAll('.group')) {
        group.hidden = !group.querySelector('[data-tool-search]:not([hidden])');
      }
      count.textContent = shown + (shown === 1 ? ' tool' : ' tools');
    });
  }

  const specNode = document.getElementById('tool-spec');
  if (!specNode) return;
  const spec = JSON.parse(specNode.textContent);
  const root = spec.inputSchema && typeof spec.inputSchema === 'object' ? spec.inputSchema : {};

  // --- Elements.
  let ids = 0;
  const freshId = (hint) => 'f' + (ids += 1) + '-' + String(hint).replace(/[^A-Za-z0-9_-]/g, '_');

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'text') node.textContent = value;
      else if (key === 'class') node.className = value;
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  // --- Schemas: references into the standalone schema's $defs, allOf merged, nullability.
  function deref(schema, depth) {
    depth = depth || 0;
    if (schema === true || schema === undefined || schema === null) return {};
    if (typeof schema !== 'object' || depth > 32) return {};
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/$defs/')) {
      const name = decodeURIComponent(schema.$ref.slice(8)).replace(/~1/g, '/').replace(/~0/g, '~');
      const target = (root.$defs || {})[name];
      if (target) {
        const rest = Object.assign({}, schema);
        delete rest.$ref;
        return deref(Object.assign({}, target, rest), depth + 1);
      }
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length) {
      const merged = Object.assign({}, schema);
      delete merged.allOf;
      for (const branch of schema.allOf.map((b) => deref(b, depth + 1))) {
        for (const [key, value] of Object.entries(branch)) {
          if (key === 'properties') merged.properties = Object.assign({}, merged.properties, value);
          else if (key === 'required') merged.required = (merged.required || []).concat(value);
          else if (!(key in merged)) merged[key] = value;
        }
      }
      return merged;
    }
    return schema;
  }

  const SCALARS = ['string', 'integer', 'number', 'boolean'];

  // The schema with `type: [T, "null"]` or `anyOf: [S, {type: null}]` read as T or S; a union of
  // plain scalar types (`oneOf: [string, integer]`, `type: [string, number]`) as `scalars`, one
  // text box whose value is read as the first type that takes it; any other union that is the
  // whole schema as a `choice` of its branches, each with its own field.
  function shape(schema) {
    let s = deref(schema);
    let union = null;
    for (const key of ['anyOf', 'oneOf']) {
      if (!Array.isArray(s[key])) continue;
      const branches = s[key].filter((b) => deref(b).type !== 'null');
      const others = branches.map((b) => deref(b));
      const rest = Object.assign({}, s);
      delete rest[key];
      if (others.length === 1 && others.length < s[key].length) {
        s = Object.assign({}, others[0], rest);
      } else if (others.length > 1 && others.every((b) => SCALARS.includes(b.type) && !b.enum && !('const' in b))) {
        union = others.map((b) => b.type);
        s = rest;
      } else if (others.length > 1 && !rest.type && !rest.properties && !rest.anyOf && !rest.oneOf && !rest.allOf) {
        return { s: Object.assign(rest, { branches }), type: 'choice' };
      }
    }
    let type = s.type;
    if (Array.isArray(type)) {
      const real = type.filter((t) => t !== 'null');
      if (real.length > 1 && real.every((t) => SCALARS.includes(t))) union = real;
      type = real.length === 1 ? real[0] : undefined;
    }
    if (union) return { s: Object.assign({}, s, { types: union }), type: 'scalars' };
    if (type === undefined && s.properties) type = 'object';
    if (Array.isArray(s.enum) || 'const' in s) type = 'enum';
    if (type === undefined || s.anyOf || s.oneOf) type = 'json';
    return { s, type };
  }

  // --- Fields. Each is {node, read(errors), set(value), clear()}; read returns undefined for
  // an absent value and pushes {field, message} for each check the value fails.
  const ABSENT = undefined;
  const fieldsByPointer = new Map();

  function frame(label, required, s, pointer, control, id) {
    const labelNode = el('label', { for: id }, label);
    if (required) labelNode.append(el('span', { class: 'required', 'aria-hidden': 'true', text: ' *' }), el('span', { class: 'sr-only', text: ' (required)' }));
    if (s.deprecated) labelNode.append(el('span', { class: 'muted', text: ' (deprecated)' }));
    const help = s.description ? el('p', { class: 'help', id: id + '-help' }, inline(s.description)) : null;
    const error = el('p', { class: 'error', id: id + '-error', role: 'alert', hidden: true });
    control.setAttribute('aria-describedby', [help && help.id, error.id].filter(Boolean).join(' '));
    const node = el('div', { class: 'field', 'data-pointer': pointer }, labelNode, control, help, error);
    return { node, error };
  }

  function problem(field, control, errorNode, message) {
    errorNode.textContent = message;
    errorNode.hidden = false;
    control.setAttribute('aria-invalid', 'true');
    return { field: control, message };
  }

  function clearProblem(control, errorNode) {
    errorNode.hidden = true;
    errorNode.textContent = '';
    control.removeAttribute('aria-invalid');
  }

  const FORMATS = {
    date: /^\d{4}-\d{2}-\d{2}$/,
    'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
    time: /^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/,
    email: /^[^@\s]+@[^@\s]+$/,
    uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  };

  function stringProblems(s, value) {
    const length = Array.from(value).length;
    if (s.minLength !== undefined && length < s.minLength) return 'At least ' + s.minLength + ' characters.';
    if (s.maxLength !== undefined && length > s.maxLength) return 'At most ' + s.maxLength + ' characters.';
    if (s.pattern) {
      try {
        if (!new RegExp(s.pattern, 'u').test(value)) return 'Does not match the pattern ' + s.pattern + '.';
      } catch (_) { /* a pattern JavaScript cannot read is left to the server */ }
    }
    if (FORMATS[s.format] && !FORMATS[s.format].test(value)) return 'Not a valid ' + s.format + '.';
    if ((s.format === 'uri' || s.format === 'url') && !URL.canParse(value)) return 'Not a valid URL.';
    return null;
  }

  function numberProblems(s, type, value) {
    if (type === 'integer' && !Number.isInteger(value)) return 'A whole number.';
    if (s.minimum !== undefined && value < s.minimum) return 'At least ' + s.minimum + '.';
    if (s.maximum !== undefined && value > s.maximum) return 'At most ' + s.maximum + '.';
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) return 'More than ' + s.exclusiveMinimum + '.';
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) return 'Less than ' + s.exclusiveMaximum + '.';
    if (s.multipleOf && Math.abs(value / s.multipleOf - Math.round(value / s.multipleOf)) > 1e-9) return 'A multiple of ' + s.multipleOf + '.';
    return null;
  }

  function scalarField(s, type, label, required, pointer) {
    const id = freshId(pointer || 'input');
    const bytes = type === 'string' && (s.contentEncoding === 'base64' || s.format === 'byte' || s.format === 'binary');
    let control;
    let fileBase64 = ABSENT;
    if (type === 'enum') {
      const choices = Array.isArray(s.enum) ? s.enum : [s.const];
      control = el('select', { id, name: pointer });
      if (!required || choices.length > 1) control.append(el('option', { value: '', text: required ? 'Choose…' : '(none)' }));
      choices.forEach((choice, i) => control.append(el('option', { value: String(i), text: typeof choice === 'string' ? choice : JSON.stringify(choice) })));
    } else if (type === 'boolean') {
      if (required) {
        control = el('input', { id, name: pointer, type: 'checkbox' });
      } else {
        control = el('select', { id, name: pointer });
        for (const [value, text] of [['', '(none)'], ['true', 'true'], ['false', 'false']]) control.append(el('option', { value, text }));
      }
    } else if (type === 'integer' || type === 'number') {
      control = el('input', {
        id, name: pointer, type: 'number', inputmode: type === 'integer' ? 'numeric' : 'decimal',
        min: s.minimum, max: s.maximum, step: type === 'integer' ? (s.multipleOf || 1) : (s.multipleOf || 'any'),
      });
    } else if (bytes) {
      control = el('input', { id, name: pointer, type: 'file' });
      control.addEventListener('change', () => {
        fileBase64 = ABSENT;
        const file = control.files && control.files[0];
        if (!file) return;
        const reader = new FileReader();
        reader.onload = () => { fileBase64 = String(reader.result).replace(/^data:[^,]*,/, ''); };
        reader.readAsDataURL(file);
      });
    } else {
      // A text meant to be long (over 200 characters allowed, or a media type) gets a text area.
      const long = (s.maxLength !== undefined && s.maxLength > 200) || s.contentMediaType !== undefined;
      const kinds = { email: 'email', uri: 'url', url: 'url', password: 'password', date: 'date' };
      control = long && !s.format
        ? el('textarea', { id, name: pointer, rows: 2, spellcheck: 'false' })
        : el('input', { id, name: pointer, type: kinds[s.format] || 'text', spellcheck: 'false' });
      if (s.format === 'date-time') control.setAttribute('placeholder', '2026-01-31T09:30:00Z');
      if (type === 'scalars') control.setAttribute('placeholder', s.types.join(' or '));
      if (s.minLength !== undefined) control.setAttribute('minlength', s.minLength);
      if (s.maxLength !== undefined) control.setAttribute('maxlength', s.maxLength);
    }
    if (required && type !== 'boolean') control.setAttribute('aria-required', 'true');
    const { node, error } = frame(label, required, s, pointer, control, id);

    const field = {
      node,
      read(errors) {
        clearProblem(control, error);
        const fail = (message) => { errors.push(problem(field, control, error, message)); return ABSENT; };
        if (type === 'boolean') {
          if (control.type === 'checkbox') return control.checked;
          return control.value === '' ? ABSENT : control.value === 'true';
        }
        if (bytes) {
          if (fileBase64 === ABSENT && required) return fail('Choose a file.');
          return fileBase64;
        }
        const raw = control.value;
        if (raw === '') return required ? fail('Required.') : ABSENT;
        if (type === 'enum') {
          const choices = Array.isArray(s.enum) ? s.enum : [s.const];
          return choices[Number(raw)];
        }
        if (type === 'scalars') {
          if (s.types.includes('string')) return raw;
          const number = Number(raw.trim());
          if ((s.types.includes('number') || (s.types.includes('integer') && Number.isInteger(number))) && raw.trim() !== '' && Number.isFinite(number)) return number;
          if (s.types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
          return fail('Not a ' + s.types.join(' or ') + '.');
        }
        if (type === 'integer' || type === 'number') {
          const value = Number(raw);
          if (!Number.isFinite(value)) return fail('Not a number.');
          const why = numberProblems(s, type, value);
          return why ? fail(why) : value;
        }
        const why = stringProblems(s, raw);
        return why ? fail(why) : raw;
      },
      set(value) {
        if (type === 'boolean') {
          if (control.type === 'checkbox') control.checked = value === true;
          else control.value = value === true ? 'true' : value === false ? 'false' : '';
        } else if (type === 'enum') {
          const choices = Array.isArray(s.enum) ? s.enum : [s.const];
          const i = choices.findIndex((c) => JSON.stringify(c) === JSON.stringify(value));
          control.value = i < 0 ? '' : String(i);
        } else if (!bytes) {
          control.value = value === undefined || value === null ? '' : String(value);
        }
      },
      mark(message) { problem(field, control, error, message); },
    };
    if (s.default !== undefined) field.set(s.default);
    fieldsByPointer.set(pointer, field);
    return field;
  }

  function jsonField(s, label, required, pointer) {
    const id = freshId(pointer || 'input');
    const control = el('textarea', { id, name: pointer, rows: 4, spellcheck: 'false', class: 'json' });
    const { node, error } = frame(label + ' (JSON)', required, s, pointer, control, id);
    const field = {
      node,
      read(errors) {
        clearProblem(control, error);
        if (control.value.trim() === '') {
          if (required) errors.push(problem(field, control, error, 'Required.'));
          return ABSENT;
        }
        try {
          return JSON.parse(control.value);
        } catch (e) {
          errors.push(problem(field, control, error, 'Not valid JSON: ' + e.message));
          return ABSENT;
        }
      },
      set(value) { control.value = value === undefined ? '' : JSON.stringify(value, null, 2); },
      mark(message) { problem(field, control, error, message); },
    };
    if (s.default !== undefined) field.set(s.default);
    fieldsByPointer.set(pointer, field);
    return field;
  }

  function arrayField(s, label, required, pointer, depth) {
    const items = s.items === undefined ? {} : s.items;
    const itemShape = shape(items);
    if (itemShape.type === 'json' || Array.isArray(s.prefixItems)) return jsonField(s, label, required, pointer);
    const legend = el('legend', {}, label);
    if (required) legend.append(el('span', { class: 'required', 'aria-hidden': 'true', text: ' *' }), el('span', { class: 'sr-only', text: ' (required)' }));
    const list = el('ol', { class: 'items' });
    const add = el('button', { type: 'button', class: 'secondary', text: 'Add an item' });
    add.setAttribute('aria-label', 'Add an item to ' + label);
    const help = s.description ? el('p', { class: 'help' }, inline(s.description)) : null;
    const error = el('p', { class: 'error', role: 'alert', hidden: true });
    const node = el('fieldset', { class: 'array', 'data-pointer': pointer }, legend, help, list, add, error);
    const entries = [];

    function addItem(value) {
      const index = entries.length;
      const item = build(items, label + ' item ' + (index + 1), true, pointer + '/' + index, depth + 1);
      const remove = el('button', { type: 'button', class: 'secondary', text: 'Remove' });
      remove.setAttribute('aria-label', 'Remove ' + label + ' item ' + (index + 1));
      const li = el('li', {}, item.node, remove);
      const entry = { item, li };
      remove.addEventListener('click', () => {
        entries.splice(entries.indexOf(entry), 1);
        li.remove();
        add.focus();
      });
      entries.push(entry);
      list.append(li);
      if (value !== undefined) item.set(value);
      return item;
    }
    add.addEventListener('click', () => {
      const item = addItem();
      const first = item.node.querySelector('input, select, textarea');
      if (first) first.focus();
    });

    const field = {
      node,
      read(errors) {
        error.hidden = true;
        const values = [];
        for (const { item } of entries) {
          const value = item.read(errors);
          if (value !== ABSENT) values.push(value);
        }
        if (values.length === 0 && !required) return ABSENT;
        const fail = (message) => { error.textContent = message; error.hidden = false; errors.push({ field: add, message }); };
        if (s.minItems !== undefined && values.length < s.minItems) fail('At least ' + s.minItems + ' items.');
        if (s.maxItems !== undefined && values.length > s.maxItems) fail('At most ' + s.maxItems + ' items.');
        if (s.uniqueItems && new Set(values.map((v) => JSON.stringify(v))).size < values.length) fail('The items must differ.');
        return values;
      },
      set(value) {
        for (const { li } of entries.splice(0)) li.remove();
        if (Array.isArray(value)) value.forEach((v) => addItem(v));
      },
      mark(message) { error.textContent = message; error.hidden = false; },
    };
    if (s.default !== undefined) field.set(s.default);
    fieldsByPointer.set(pointer, field);
    return field;
  }

  function objectField(s, label, required, pointer, depth, top) {
    const properties = s.properties || {};
    // A property whose schema is `false` (a request's read-only one) takes no value: no field.
    const names = Object.keys(properties).filter((name) => properties[name] !== false);
    if (names.length === 0 || depth > 6) return jsonField(s, label, required, pointer);
    const needed = new Set(s.required || []);
    const children = names.map((name) => [name, build(properties[name], name, needed.has(name), pointer + '/' + name.replace(/~/g, '~0').replace(/\//g, '~1'), depth + 1)]);
    let node;
    if (top) {
      node = el('div', { class: 'object top' });
    } else {
      const legend = el('legend', {}, label);
      if (required) legend.append(el('span', { class: 'required', 'aria-hidden': 'true', text: ' *' }), el('span', { class: 'sr-only', text: ' (required)' }));
      node = el('fieldset', { class: 'object', 'data-pointer': pointer }, legend, s.description ? el('p', { class: 'help' }, inline(s.description)) : null);
    }
    for (const [, child] of children) node.append(child.node);
    const field = {
      node,
      read(errors) {
        const value = {};
        for (const [name, child] of children) {
          const v = child.read(errors);
          if (v !== ABSENT) value[name] = v;
        }
        return Object.keys(value).length === 0 && !required ? ABSENT : value;
      },
      set(value) {
        const given = value && typeof value === 'object' ? value : {};
        for (const [name, child] of children) child.set(given[name]);
      },
      mark() {},
    };
    fieldsByPointer.set(pointer, field);
    return field;
  }

  // What a union's branch is called in its choice: its title, the component it names, its
  // values or its type.
  function branchLabel(branch, i) {
    const b = deref(branch);
    if (b.title) return b.title;
    if (typeof branch.$ref === 'string') return decodeURIComponent(branch.$ref.split('/').pop());
    if (Array.isArray(b.enum)) return b.enum.map((v) => JSON.stringify(v)).join(' | ');
    if ('const' in b) return JSON.stringify(b.const);
    if (b.type) return [].concat(b.type).join(' or ');
    return 'variant ' + (i + 1);
  }

  // Whether `value` has the form of the branch `schema` describes (to show a value in its branch).
  function fits(schema, value) {
    const { s, type } = shape(schema);
    const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    if (type === 'enum') return (Array.isArray(s.enum) ? s.enum : [s.const]).some((c) => JSON.stringify(c) === JSON.stringify(value));
    if (type === 'integer') return Number.isInteger(value);
    if (type === 'scalars') return s.types.some((t) => t === kind || (t === 'integer' && Number.isInteger(value)));
    if (type === 'json' || type === 'choice') return true;
    return type === kind;
  }

  // A union: a choice of its branches, and the chosen one's field (built when first chosen).
  function choiceField(s, label, required, pointer, depth) {
    const branches = s.branches;
    const id = freshId(pointer + '-kind');
    const select = el('select', { id, name: pointer + '#kind' });
    select.append(el('option', { value: '', text: required ? 'Choose…' : '(none)' }));
    branches.forEach((b, i) => select.append(el('option', { value: String(i), text: branchLabel(b, i) })));
    const legend = el('legend', {}, label);
    if (required) legend.append(el('span', { class: 'required', 'aria-hidden': 'true', text: ' *' }), el('span', { class: 'sr-only', text: ' (required)' }));
    const error = el('p', { class: 'error', id: id + '-error', role: 'alert', hidden: true });
    select.setAttribute('aria-describedby', error.id);
    const slot = el('div', { class: 'variant' });
    const node = el('fieldset', { class: 'choice', 'data-pointer': pointer }, legend,
      s.description ? el('p', { class: 'help' }, inline(s.description)) : null,
      el('div', { class: 'field' }, el('label', { for: id, text: 'Kind of ' + label }), select, error), slot);
    const built = new Map();
    let chosen = null;
    function choose(index) {
      if (index === '') {
        chosen = null;
        slot.replaceChildren();
        return;
      }
      if (!built.has(index)) built.set(index, build(branches[Number(index)], label, true, pointer, depth + 1));
      chosen = built.get(index);
      fieldsByPointer.set(pointer, chosen);
      slot.replaceChildren(chosen.node);
    }
    select.addEventListener('change', () => choose(select.value));
    const field = {
      node,
      read(errors) {
        clearProblem(select, error);
        if (chosen) return chosen.read(errors);
        if (required) errors.push(problem(field, select, error, 'Choose one.'));
        return ABSENT;
      },
      set(value) {
        const index = value === undefined || value === null ? -1 : Math.max(0, branches.findIndex((b) => fits(b, value)));
        select.value = index < 0 ? '' : String(index);
        choose(select.value);
        if (chosen) chosen.set(value);
      },
      mark(message) { (chosen || { mark: () => problem(field, select, error, message) }).mark(message); },
    };
    if (s.default !== undefined) field.set(s.default);
    return field;
  }

  function build(schema, label, required, pointer, depth) {
    const { s, type } = shape(schema);
    if (s.title && label === undefined) label = s.title;
    if (type === 'choice') return depth > 6 ? jsonField(s, label, required, pointer) : choiceField(s, label, required, pointer, depth);
    if (type === 'object') return objectField(s, label, required, pointer, depth, false);
    if (type === 'array') return arrayField(s, label, required, pointer, depth);
    if (type === 'json' || type === 'null') return jsonField(s, label, required, pointer);
    return scalarField(s, type, label, required, pointer);
  }

  // --- The form.
  const form = document.getElementById('call-form');
  const fieldsNode = document.getElementById('fields');
  const jsonEditor = document.getElementById('json-editor');
  const jsonText = document.getElementById('input-json');
  const jsonError = document.getElementById('input-json-error');
  const rootShape = shape(root);
  const top = rootShape.type === 'object' && Object.keys(rootShape.s.properties || {}).length > 0
    ? objectField(rootShape.s, spec.name, true, '', 0, true)
    : null;
  if (top) {
    fieldsNode.replaceChildren(top.node);
  } else if (rootShape.s.additionalProperties === false) {
    fieldsNode.replaceChildren(el('p', { class: 'muted', text: 'This tool takes no input.' }));
  } else {
    fieldsNode.replaceChildren(el('p', { class: 'muted', text: 'This tool’s input has no fields a form can show: write it as JSON.' }));
  }
  let mode = 'form';

  function setMode(next) {
    if (next === mode) return;
    if (next === 'json') {
      const value = top ? top.read([]) : {};
      jsonText.value = JSON.stringify(value === ABSENT ? {} : value, null, 2);
    } else if (top) {
      try {
        top.set(JSON.parse(jsonText.value || '{}'));
        // What reading the form for the JSON editor found is not news on returning to it.
        for (const node of fieldsNode.querySelectorAll('.error')) node.hidden = true;
        for (const node of fieldsNode.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
        jsonError.hidden = true;
      } catch (e) {
        jsonError.textContent = 'Not valid JSON: ' + e.message;
        jsonError.hidden = false;
        form.querySelector('input[name="mode"][value="json"]').checked = true;
        return;
      }
    }
    mode = next;
    fieldsNode.hidden = mode === 'json';
    jsonEditor.hidden = mode !== 'json';
  }
  for (const radio of form.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener('change', () => setMode(radio.value));
  }
  if (!top && rootShape.s.additionalProperties !== false) {
    form.querySelector('input[name="mode"][value="json"]').checked = true;
    setMode('json');
  }

  function confirmed() {
    const dialog = document.getElementById('confirm');
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), { once: true });
      dialog.returnValue = '';
      dialog.showModal();
      document.getElementById('confirm-cancel').focus();
    });
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    jsonError.hidden = true;
    let input;
    if (mode === 'json') {
      try {
        input = JSON.parse(jsonText.value || '{}');
      } catch (e) {
        jsonError.textContent = 'Not valid JSON: ' + e.message;
        jsonError.hidden = false;
        jsonText.setAttribute('aria-invalid', 'true');
        jsonText.focus();
        return;
      }
      jsonText.removeAttribute('aria-invalid');
    } else {
      const errors = [];
      input = top ? top.read(errors) : {};
      if (errors.length) {
        errors[0].field.focus();
        return;
      }
      if (input === ABSENT) input = {};
    }
    if (spec.destructive && !(await confirmed())) return;
    await call(input, spec.destructive);
  });

  // --- The call and its outcome.
  const button = document.getElementById('call-button');
  const result = document.getElementById('result');
  const resultBody = document.getElementById('result-body');

  async function call(input, wasConfirmed) {
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    let status = 0;
    let answer;
    try {
      const response = await fetch(spec.endpoint, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-harness-token': token },
        body: JSON.stringify({ input, confirmed: wasConfirmed }),
      });
      status = response.status;
      const type = response.headers.get('content-type') || '';
      answer = type.startsWith('application/x-ndjson') ? await live(response) : await response.json();
    } catch (e) {
      answer = { ok: false, error: { kind: 'unreachable', message: 'The dashboard’s server did not answer: ' + e.message } };
    } finally {
      button.disabled = false;
      button.removeAttribute('aria-busy');
    }
    show(answer, status);
  }

  // A tool that returns events answers one JSON line per event as it arrives, then the call's
  // answer: each event is shown as it comes, the answer replaces them when the stream ends.
  async function live(response) {
    result.hidden = false;
    result.dataset.outcome = 'streaming';
    const list = el('ol', { class: 'events', id: 'events' });
    resultBody.replaceChildren(el('p', { class: 'outcome', id: 'outcome', text: 'Receiving events…' }), list);
    result.scrollIntoView({ block: 'nearest' });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let pending = '';
    let answer = null;
    const take = (text) => {
      if (!text.trim()) return;
      const line = JSON.parse(text);
      if ('event' in line) {
        list.append(el('li', {}, el('code', { text: JSON.stringify(line.event) })));
      } else {
        answer = line;
      }
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      let end;
      while ((end = pending.indexOf('\n')) >= 0) {
        take(pending.slice(0, end));
        pending = pending.slice(end + 1);
      }
    }
    take(pending + decoder.decode());
    return answer || { ok: false, error: { kind: 'unreachable', message: 'The stream ended before the call’s answer.' } };
  }

  const HEADINGS = {
    ok: 'Succeeded',
    application: 'The tool answered with a declared error',
    invalid_input: 'Invalid input',
    runtime: 'Runtime error',
    contract_violation: 'The tool broke its contract',
    unknown_tool: 'Unknown tool',
    confirmation_required: 'Not called: confirmation needed',
    forbidden: 'Refused',
    unauthenticated: 'Not called: no credentials',
    unreachable: 'No answer',
  };

  function show(answer, status) {
    const error = answer.ok ? null : answer.error || {};
    const kind = answer.ok ? 'ok' : error.kind || 'failed';
    result.hidden = false;
    result.dataset.outcome = kind;
    const heading = el('p', { class: 'outcome outcome-' + kind, id: 'outcome', text: HEADINGS[kind] || kind });
    const parts = [heading];
    if (answer.call) {
      const about = el('p', { class: 'muted' });
      about.append(el('a', { href: '/dashboard/calls/' + answer.call.id, text: 'Call ' + answer.call.id }), ' · ' + answer.call.durationMs.toFixed(1) + ' ms');
      parts.push(about);
    }
    if (answer.ok) {
      parts.push(rendered(answer.output));
    } else if (kind === 'application') {
      parts.push(el('p', { text: 'Its data, as the tool’s error schema declares it:' }), rendered(error.data));
    } else {
      if (kind === 'runtime') parts.push(el('p', {}, 'Category: ', el('code', { class: 'category', text: error.category })));
      // A reply outside the operation's contract: what the API answered, its first bytes.
      if (kind === 'runtime' && error.reply) {
        const head = 'HTTP ' + error.reply.status + (error.reply.contentType ? ', ' + error.reply.contentType : '');
        parts.push(el('p', {}, 'The API answered: ', el('code', { class: 'reply', text: head })));
        if (error.reply.excerpt) parts.push(el('pre', { class: 'excerpt', text: error.reply.excerpt }));
      }
      if (kind === 'contract_violation') parts.push(el('p', {}, 'Broken: its ', el('code', { text: error.phase }), ' schema'));
      if (error.message) parts.push(el('p', { class: 'message', text: error.message }));
      if (Array.isArray(error.issues) && error.issues.length) {
        const list = el('ul', { class: 'issues' });
        for (const issue of error.issues) {
          list.append(el('li', {}, el('code', { text: issue.pointer || '/' }), ' fails ', el('code', { text: issue.keyword })));
          const field = kind === 'invalid_input' && mode === 'form' && fieldsByPointer.get(issue.pointer);
          if (field) field.mark('The server refused this value: it fails ' + issue.keyword + '.');
        }
        parts.push(list);
      }
    }
    if (!(kind in HEADINGS) && status) {
      parts.push(el('p', { class: 'muted', text: 'HTTP status ' + status }));
    }
    resultBody.replaceChildren(...parts);
    result.scrollIntoView({ block: 'nearest' });
  }

  // --- Values: arrays of objects as tables, anything else as a tree of collapsible nodes.
  function rendered(value) {
    const wrap = el('div', { class: 'value' });
    if (Array.isArray(value) && value.length && value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) {
      wrap.append(table(value));
    } else {
      wrap.append(el('ul', { class: 'tree' }, node(null, value, 0)));
    }
    const raw = el('details', { class: 'raw' }, el('summary', { text: 'Raw JSON' }), el('pre', { text: JSON.stringify(value, null, 2) }));
    wrap.append(raw);
    return wrap;
  }

  function cell(value) {
    if (value === null || value === undefined) return el('span', { class: 'muted', text: value === null ? 'null' : '' });
    if (typeof value === 'object') return el('code', { text: JSON.stringify(value) });
    return document.createTextNode(String(value));
  }

  function table(rows) {
    const columns = [];
    for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
    const head = el('tr', {}, ...columns.map((c) => el('th', { scope: 'col', text: c })));
    const body = rows.map((row) => el('tr', {}, ...columns.map((c) => el('td', {}, cell(row[c])))));
    return el('div', { class: 'scroll' }, el('table', { class: 'output' },
      el('caption', { text: rows.length + (rows.length === 1 ? ' item' : ' items') }),
      el('thead', {}, head), el('tbody', {}, ...body)));
  }

  function node(key, value, depth) {
    const label = key === null ? null : el('span', { class: 'key', text: key + ': ' });
    if (value && typeof value === 'object') {
      const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
      const size = Array.isArray(value) ? '[' + entries.length + (entries.length === 1 ? ' item]' : ' items]') : '{' + entries.length + (entries.length === 1 ? ' key}' : ' keys}');
      if (!entries.length) return el('li', {}, label, el('span', { class: 'muted', text: Array.isArray(value) ? '[]' : '{}' }));
      const summary = el('summary', {}, label, el('span', { class: 'muted', text: size }));
      const children = el('ul', {}, ...entries.map(([k, v]) => node(k, v, depth + 1)));
      return el('li', {}, el('details', { open: depth < 2 }, summary, children));
    }
    const kind = value === null ? 'null' : typeof value;
    return el('li', {}, label, el('span', { class: 'json-' + kind, text: kind === 'string' ? JSON.stringify(value) : String(value) }));
  }
})();
