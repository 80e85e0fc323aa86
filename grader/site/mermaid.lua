-- Pandoc Lua filter of the course site (grader/site/): draws the notes' ```mermaid blocks offline (Debian has no Mermaid).
--
-- Flowcharts (`flowchart` / `graph`) are translated to Graphviz and drawn by dot as inline
-- SVG; sequence diagrams are laid out in HTML and CSS (lifelines, arrows, notes, loop/alt
-- frames; site.css). Each drawn diagram keeps its Mermaid source in a <details> under it.
-- Another kind of diagram (gantt, classDiagram…), a line this reader does not know, or no
-- dot on the machine: the source is shown in a labelled box, never an error. Every diagram
-- is reported to $SITE_REPORT ("diagram <drawn|source> <kind> <why>"), which the builder
-- prints and the course.site test reads.
--   $SITE_DOT     the dot program ("" when Graphviz is missing)
--   $SITE_LANG    en or zh: the language of the labels this filter writes

local dot_program = os.getenv("SITE_DOT") or ""
local lang = os.getenv("SITE_LANG") or "en"
local report_path = os.getenv("SITE_REPORT")
local diagram_count = 0

local words = {
  en = {
    source = "Mermaid source",
    shown_as_text = "Diagram, shown as its Mermaid source",
    flowchart = "Flowchart",
    sequence = "Sequence diagram",
  },
  zh = {
    source = "Mermaid 源码",
    shown_as_text = "图（以 Mermaid 源码显示）",
    flowchart = "流程图",
    sequence = "时序图",
  },
}
local W = words[lang] or words.en

local function report(status, kind, why)
  if not report_path then return end
  local f = io.open(report_path, "a")
  if not f then return end
  f:write("diagram\t", status, "\t", kind, "\t", (why:gsub("[\t\r\n]", " ")), "\n")
  f:close()
end

local function trim(s) return (s:gsub("^%s+", ""):gsub("%s+$", "")) end

local function html_escape(s)
  return (s:gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

-- Mermaid's entity codes (#quot;, #35;) and its Markdown-string backticks.
local function decode_text(s)
  s = s:gsub("#(%d+);", function(n) return utf8.char(tonumber(n)) end)
  s = s:gsub("#(%a+);", { quot = '"', amp = "&", lt = "<", gt = ">", nbsp = " " })
  s = s:gsub('^"(.*)"$', "%1"):gsub("^`(.*)`$", "%1")
  return s
end

-- A label's lines: Mermaid's <br>, <br/> and <br /> break a line.
local function label_lines(s)
  local lines = {}
  s = s:gsub("<[bB][rR]%s*/?>", "\n")
  for line in (s .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = trim(line) end
  return lines
end

-- Width in half-ems, roughly: ASCII 1, CJK and other wide characters 2.
local function text_width(s)
  local w = 0
  for _, c in utf8.codes(s) do w = w + ((c < 0x1100) and 1 or 2) end
  return w
end

-- Closing punctuation never starts a line (Chinese line-breaking rule).
local no_line_start = {}
for _, c in utf8.codes("，。、；：？！）」』》〉】”’,.;:?!)%") do no_line_start[c] = true end

-- Splits a line into pieces a line may break between: ASCII words (with their trailing
-- space) and single wide characters, closing punctuation glued to what precedes it.
local function break_pieces(line)
  local pieces, word = {}, ""
  for _, c in utf8.codes(line) do
    local ch = utf8.char(c)
    if c < 0x1100 and c ~= 0x20 then
      if no_line_start[c] and word == "" and #pieces > 0 then
        pieces[#pieces] = pieces[#pieces] .. ch
      else
        word = word .. ch
      end
    elseif c == 0x20 then
      if word ~= "" then pieces[#pieces + 1] = word .. " "; word = ""
      elseif #pieces > 0 then pieces[#pieces] = pieces[#pieces] .. " " end
    else
      if word ~= "" then pieces[#pieces + 1] = word; word = "" end
      if no_line_start[c] and #pieces > 0 then pieces[#pieces] = pieces[#pieces] .. ch
      else pieces[#pieces + 1] = ch end
    end
  end
  if word ~= "" then pieces[#pieces + 1] = word end
  return pieces
end

local function greedy(pieces, max)
  local lines, cur = {}, ""
  for _, p in ipairs(pieces) do
    if cur ~= "" and text_width(trim(cur .. p)) > max then
      lines[#lines + 1] = trim(cur)
      cur = p
    else
      cur = cur .. p
    end
  end
  lines[#lines + 1] = trim(cur)
  return lines
end

-- Wrapping of a label to about `max` half-ems per line (Mermaid wraps node text too),
-- narrower where that keeps a lone character off the last line (同一列的 32 / 行).
local function wrap(text, max)
  local out = {}
  for _, line in ipairs(label_lines(text)) do
    local pieces = break_pieces(line)
    local lines = greedy(pieces, max)
    for narrower = max - 2, max - 8, -2 do
      if #lines == 1 or text_width(lines[#lines]) > 2 then break end
      lines = greedy(pieces, narrower)
    end
    for _, l in ipairs(lines) do out[#out + 1] = l end
  end
  return out
end

---------------------------------------------------------------------------------------
-- Flowcharts → Graphviz
---------------------------------------------------------------------------------------

-- Node shapes: Mermaid's brackets → Graphviz attributes. Longer openers first.
local shapes = {
  { "(((", ")))", 'shape=doublecircle' },
  { "((", "))", 'shape=circle' },
  { "([", "])", 'shape=box, style="rounded,filled"' },
  { "[(", ")]", 'shape=cylinder' },
  { "[[", "]]", 'shape=box, peripheries=2' },
  { "[/", "/]", 'shape=parallelogram' },
  { "[\\", "\\]", 'shape=parallelogram' },
  { "[/", "\\]", 'shape=trapezium' },
  { "[\\", "/]", 'shape=invtrapezium' },
  { "{{", "}}", 'shape=hexagon' },
  { "[", "]", 'shape=box' },
  { "(", ")", 'shape=box, style="rounded,filled"' },
  { "{", "}", 'shape=diamond' },
  { ">", "]", 'shape=cds' },
}

local function skip_ws(s, i) return s:match("^%s*()", i) end

-- An id: letters, digits, underscores, and hyphens between them (A-->B stays two ids).
local function read_id(s, i)
  local id, j = s:match("^([%w_]+)()", i)
  if not id then return nil end
  while true do
    local more, k = s:match("^(%-[%w_]+)()", j)
    if not more then break end
    id, j = id .. more, k
  end
  return id, j
end

-- One node reference, with its shape and label when given: returns {id, label, shape}, next.
local function read_node(s, i)
  i = skip_ws(s, i)
  local id, j = read_id(s, i)
  if not id then return nil end
  local node = { id = id }
  for _, sh in ipairs(shapes) do
    local open, close = sh[1], sh[2]
    if s:sub(j, j + #open - 1) == open then
      local t = j + #open
      local label, after
      if s:sub(t, t) == '"' then
        local q = s:find('"', t + 1, true)
        if q then
          local k = skip_ws(s, q + 1)
          if s:sub(k, k + #close - 1) == close then label, after = s:sub(t + 1, q - 1), k + #close end
        end
      else
        local c = s:find(close, t, true)
        if c then label, after = s:sub(t, c - 1), c + #close end
      end
      if label then
        node.label, node.shape, j = decode_text(trim(label)), sh[3], after
        break
      end
    end
  end
  local cls, k = s:match("^:::([%w_%-]+)()", j)
  if cls then node.class, j = cls, k end
  return node, j
end

-- Nodes joined by &: A & B --> C.
local function read_group(s, i)
  local first, j = read_node(s, i)
  if not first then return nil end
  local group = { first }
  while true do
    local k = skip_ws(s, j)
    if s:sub(k, k) ~= "&" then break end
    local n, after = read_node(s, k + 1)
    if not n then return nil end
    group[#group + 1], j = n, after
  end
  return group, j
end

-- Graphviz attributes of a link from its pieces: body (- = . ~), heads, text.
local function link_attrs(start_head, body, head, text)
  local a = {}
  if body:find("^~") then a[#a + 1] = "style=invis" end
  if body:find("%.") then a[#a + 1] = "style=dashed" end
  if body:find("^=") then a[#a + 1] = "penwidth=2" end
  local heads = { [">"] = "normal", o = "odot", x = "tee", [""] = "none" }
  a[#a + 1] = "arrowhead=" .. heads[head]
  if start_head ~= "" then a[#a + 1] = "dir=both"; a[#a + 1] = "arrowtail=" .. heads[start_head] end
  local extra
  if body:find("%.") then
    extra = select(2, body:gsub("%.", "")) - 1  -- -.-> is one dot, -..-> one longer
  else
    extra = #body - (head == "" and 3 or 2)     -- --> and --- are the normal lengths
  end
  if extra > 0 then a[#a + 1] = "minlen=" .. (1 + extra) end
  return a, text
end

-- A link at i: -->, ---, -.->, ==>, <-->, --o, --x, ~~~, with |text| or -- text -->.
local function read_link(s, i)
  i = skip_ws(s, i)
  local j, start_head = i, ""
  if s:sub(j, j) == "<" then start_head, j = ">", j + 1 end
  local body, k = s:match("^([%-=%.~]+)()", j)
  if not body or #body < 2 then return nil end
  local head = ""
  local c = s:sub(k, k)
  if c == ">" then head, k = ">", k + 1
  elseif (c == "o" or c == "x") and s:sub(k + 1, k + 1):match("^[%s]?$") then head, k = c, k + 1 end
  local text
  if head == "" and (body == "--" or body == "==" or body == "-.") and s:sub(k, k):match("%s") then
    -- -- text -->: the text runs to the closing arrow
    local closers = { ["--"] = "%s(%-%-+[>ox]?)", ["=="] = "%s(==+[>ox]?)", ["-."] = "%s(%.%-+[>ox]?)" }
    local a, b, closer = s:find(closers[body], k)
    if not a then return nil end
    text = trim(s:sub(k, a))
    head = closer:match("[>ox]$") or ""
    body, k = closer:sub(1, #closer - #head), b + 1  -- the closing arrow sets style and length
  else
    local t, after = s:match("^%s*|([^|]*)|()", k)
    if t then text, k = trim(t), after end
  end
  local attrs = link_attrs(start_head, body, head, text)
  return { attrs = attrs, text = text and decode_text(text) or nil }, k
end

local function parse_style(spec)
  local st = {}
  for item in (spec .. ","):gmatch("([^,]*),") do
    local key, value = item:match("^%s*([%w%-]+)%s*:%s*(.-)%s*$")
    -- Graphviz knows #rrggbb, not CSS's #rgb
    if value then value = value:gsub("^#(%x)(%x)(%x)$", "#%1%1%2%2%3%3") end
    if key == "fill" then st.fillcolor = value
    elseif key == "stroke" then st.color = value
    elseif key == "color" then st.fontcolor = value
    elseif key == "stroke-width" then st.penwidth = value:gsub("px$", "")
    elseif key == "stroke-dasharray" then st.dashed = true end
  end
  return st
end

-- A line's statements: split at ; outside quotes (not the ; that ends an entity code, #59;).
local function statements(line)
  local out, cur, quoted = {}, "", false
  for i = 1, #line do
    local c = line:sub(i, i)
    if c == '"' then quoted = not quoted end
    if c == ";" and not quoted and not cur:match("#%w+$") then
      out[#out + 1] = cur
      cur = ""
    else
      cur = cur .. c
    end
  end
  out[#out + 1] = cur
  return out
end

-- Parses a flowchart into {dir, nodes, order, clusters, edges}; errors name the line.
local function parse_flowchart(lines)
  local g = { dir = "TB", nodes = {}, order = {}, clusters = {}, cluster_of = {}, edges = {},
              classes = {}, styles = {}, defined = {} }
  local stack = {}
  local function touch(n)
    local node = g.nodes[n.id]
    if not node then
      node = { id = n.id, label = n.id }
      g.nodes[n.id] = node
      g.order[#g.order + 1] = n.id
    end
    if n.label then node.label, node.shape, g.defined[n.id] = n.label, n.shape, true end
    if n.class then node.class = n.class end
    if #stack > 0 and not g.cluster_of[n.id] then
      g.cluster_of[n.id] = stack[#stack]
      local members = stack[#stack].members
      members[#members + 1] = n.id
    end
  end
  local header = table.remove(lines, 1)
  local dir = header:match("^%a+%s+(%u%u)")
  if dir then g.dir = (dir == "TD") and "TB" or dir end
  local function parse_statement(line, number)
    local fail = function(why) error(string.format("line %d: %s: %s", number, why, line), 0) end
    if line == "" then
    elseif line:match("^subgraph%s") then
      local rest = trim(line:sub(9))
      local id, title = rest:match('^([%w_%-]+)%s*%[(.*)%]$')
      if not id then id, title = rest, rest end
      local cl = { id = id, title = decode_text(trim(title)), members = {}, children = {}, parent = stack[#stack] }
      g.clusters[#g.clusters + 1] = cl
      if cl.parent then cl.parent.children[#cl.parent.children + 1] = cl end
      stack[#stack + 1] = cl
    elseif line == "end" then
      if #stack == 0 then fail("end without subgraph") end
      table.remove(stack)
    elseif line:match("^direction%s+%u%u$") then
      if #stack == 0 then g.dir = line:match("(%u%u)$"):gsub("TD", "TB") end
    elseif line:match("^classDef%s") then
      local names, spec = line:match("^classDef%s+(%S+)%s+(.+)$")
      if not names then fail("cannot read classDef") end
      for name in names:gmatch("[^,]+") do g.classes[name] = parse_style(spec) end
    elseif line:match("^class%s") then
      local ids, name = line:match("^class%s+(%S+)%s+(%S+)$")
      if not ids then fail("cannot read class") end
      for id in ids:gmatch("[^,]+") do g.styles[id] = g.styles[id] or {}; g.styles[id].class = name end
    elseif line:match("^style%s") then
      local id, spec = line:match("^style%s+(%S+)%s+(.+)$")
      if not id then fail("cannot read style") end
      g.styles[id] = g.styles[id] or {}
      g.styles[id].own = parse_style(spec)
    elseif line:match("^linkStyle%s") or line:match("^click%s") or line:match("^acc%a+") then
      -- colours of links, clicks and accessibility text: not drawn
    else
      local group, i = read_group(line, 1)
      if not group then fail("cannot read a node") end
      for _, n in ipairs(group) do touch(n) end
      while true do
        local link, j = read_link(line, i)
        if not link then break end
        local next_group, k = read_group(line, j)
        if not next_group then fail("a link without a node after it") end
        for _, n in ipairs(next_group) do touch(n) end
        for _, a in ipairs(group) do
          for _, b in ipairs(next_group) do
            g.edges[#g.edges + 1] = { from = a.id, to = b.id, attrs = link.attrs, text = link.text }
          end
        end
        group, i = next_group, k
      end
      if skip_ws(line, i) <= #line then fail("cannot read") end
    end
  end
  for number, raw in ipairs(lines) do
    for _, statement in ipairs(statements((raw:gsub("%%%%.*$", "")))) do
      parse_statement(trim(statement), number + 1)
    end
  end
  if #stack > 0 then error("a subgraph is never closed (end)", 0) end
  return g
end

local function dot_string(lines)
  local parts = {}
  for _, l in ipairs(lines) do parts[#parts + 1] = (l:gsub("\\", "\\\\"):gsub('"', '\\"')) end
  return '"' .. table.concat(parts, "\\n") .. '"'
end

-- The Graphviz program of a parsed flowchart.
local function to_dot(g)
  local cluster_ids = {}
  for _, cl in ipairs(g.clusters) do cluster_ids[cl.id] = cl end
  -- An id that names a subgraph and is never given a shape is the subgraph itself.
  local is_cluster_ref = function(id) return cluster_ids[id] and not g.defined[id] end
  -- dot stacks a left-to-right graph's ranks bottom-up: listing everything backwards (and
  -- ordering=out) puts the first node, subgraph and link on top, as Mermaid does.
  local backwards = g.dir == "LR" or g.dir == "RL"
  local function ordered(list)
    if not backwards then return list end
    local r = {}
    for i = #list, 1, -1 do r[#r + 1] = list[i] end
    return r
  end
  local out = {
    "digraph flowchart {",
    string.format('  graph [rankdir=%s, bgcolor="transparent", fontname="sans-serif", fontsize=13, ' ..
      'nodesep=0.35, ranksep=0.5, compound=true, ordering=out, labeljust=l, pad=0.1];', g.dir),
    '  node [shape=box, style=filled, fillcolor="#eef4fb", color="#5b7fb0", fontname="sans-serif", ' ..
      'fontsize=12, margin="0.14,0.07"];',
    '  edge [color="#444444", fontname="sans-serif", fontsize=11, arrowsize=0.75];',
  }
  local function node_line(id, indent)
    local n = g.nodes[id]
    local a = { "label=" .. dot_string(wrap(n.label, backwards and 22 or 30)) }
    if n.shape then a[#a + 1] = n.shape end
    if n.shape and n.shape:find("circle") then a[#a + 1] = "style=filled" end
    local st = g.styles[id] or {}
    local cls = g.classes[n.class or st.class or ""] or g.classes.default
    for _, s in ipairs({ cls or {}, st.own or {} }) do
      for k, v in pairs(s) do
        if k == "dashed" then a[#a + 1] = 'style="filled,dashed"'
        else a[#a + 1] = string.format('%s="%s"', k, v) end
      end
    end
    return string.format('%s"%s" [%s];', indent, id, table.concat(a, ", "))
  end
  local placed = {}
  local function emit_cluster(cl, depth)
    local indent = string.rep("  ", depth + 1)
    out[#out + 1] = string.format('%ssubgraph "cluster_%s" {', indent, cl.id)
    out[#out + 1] = string.format('%s  label=%s; style="rounded,filled"; fillcolor="%s"; color="#a8a88a"; ' ..
      'fontsize=12; margin=10;', indent, dot_string(wrap(cl.title, 60)), depth % 2 == 0 and "#f7f7f1" or "#efefe6")
    for _, id in ipairs(ordered(cl.members)) do
      if not is_cluster_ref(id) then out[#out + 1] = node_line(id, indent .. "  "); placed[id] = true end
    end
    for _, child in ipairs(ordered(cl.children)) do emit_cluster(child, depth + 1) end
    if #cl.members == 0 and #cl.children == 0 then
      out[#out + 1] = string.format('%s  "%s__empty" [style=invis, label=""];', indent, cl.id)
    end
    out[#out + 1] = indent .. "}"
  end
  for _, cl in ipairs(ordered(g.clusters)) do if not cl.parent then emit_cluster(cl, 0) end end
  for _, id in ipairs(ordered(g.order)) do
    if not placed[id] and not is_cluster_ref(id) then out[#out + 1] = node_line(id, "  ") end
  end
  -- A link to or from a subgraph goes to its first node and is clipped at its frame.
  local function first_node(cl)
    for _, id in ipairs(cl.members) do if not is_cluster_ref(id) then return id end end
    for _, child in ipairs(cl.children) do local f = first_node(child); if f then return f end end
    return cl.id .. "__empty"
  end
  for _, e in ipairs(ordered(g.edges)) do
    local a = {}
    for _, x in ipairs(e.attrs) do a[#a + 1] = x end
    local from, to = e.from, e.to
    if is_cluster_ref(from) then a[#a + 1] = '"ltail"="cluster_' .. from .. '"'; from = first_node(cluster_ids[from]) end
    if is_cluster_ref(to) then a[#a + 1] = '"lhead"="cluster_' .. to .. '"'; to = first_node(cluster_ids[to]) end
    if e.text and e.text ~= "" then a[#a + 1] = "label=" .. dot_string(wrap(e.text, backwards and 16 or 26)) end
    out[#out + 1] = string.format('  "%s" -> "%s" [%s];', from, to, table.concat(a, ", "))
  end
  out[#out + 1] = "}"
  return table.concat(out, "\n")
end

-- dot's SVG, made fit to sit inline in a page with others: no XML prolog, comments or
-- tooltips, ids prefixed with the diagram's number. CSS shrinks it to the page's width, but
-- never below 60% of dot's size (12 pt text stays above 9 px): a wider one scrolls.
local function clean_svg(svg, title)
  svg = svg:gsub("^.-(<svg)", "%1")
  svg = svg:gsub("<!%-%-.-%-%->", "")
  svg = svg:gsub("<title>.-</title>", "")
  svg = svg:gsub('(%sid=")', "%1d" .. diagram_count .. "-")
  local width = tonumber(svg:match('viewBox="[%d.%-]+ [%d.%-]+ ([%d.]+)')) or 0
  local min = string.format(' style="min-width:%dpx"', math.floor(width * 4 / 3 * 0.6))
  svg = svg:gsub("<svg", '<svg class="diagram-svg" role="img" aria-label="' .. html_escape(title) .. '"' .. min, 1)
  return svg
end

---------------------------------------------------------------------------------------
-- Sequence diagrams → HTML (laid out by site.css)
---------------------------------------------------------------------------------------

local arrows = {  -- longest first at one position
  { "-->>", "dashed", "arrow" }, { "->>", "solid", "arrow" },
  { "--x", "dashed", "cross" }, { "-x", "solid", "cross" },
  { "--)", "dashed", "async" }, { "-)", "solid", "async" },
  { "-->", "dashed", "none" }, { "->", "solid", "none" },
}

local function text_html(s)
  local lines = label_lines(decode_text(s))
  for i, l in ipairs(lines) do lines[i] = html_escape(l) end
  return table.concat(lines, "<br>")
end

local function parse_sequence(lines)
  local seq = { participants = {}, index = {}, autonumber = false }
  local root = { kind = "root", sections = { { items = {} } } }
  local stack = { root }
  local function add(item)
    local top = stack[#stack]
    local items = top.sections[#top.sections].items
    items[#items + 1] = item
  end
  local function participant(id, label)
    id = trim(id)
    if not seq.index[id] then
      seq.participants[#seq.participants + 1] = { id = id, label = label or id }
      seq.index[id] = #seq.participants
    elseif label then
      seq.participants[seq.index[id]].label = label
    end
    return seq.index[id]
  end
  table.remove(lines, 1)
  for number, raw in ipairs(lines) do
    local line = trim((raw:gsub("%%%%.*$", "")))
    local fail = function(why) error(string.format("line %d: %s: %s", number + 1, why, line), 0) end
    local word = line:match("^(%a+)")
    if line == "" then
    elseif word == "participant" or word == "actor" then
      local rest = trim(line:sub(#word + 1))
      local id, label = rest:match("^(.-)%s+as%s+(.+)$")
      participant(id or rest, label and trim(label) or nil)
    elseif word == "autonumber" then
      seq.autonumber = true
    elseif word == "activate" or word == "deactivate" or word == "title" or line:match("^acc%a+") then
      -- activation bars and titles: not drawn
    elseif word == "Note" or word == "note" then
      local where, who, text = line:match("^[Nn]ote%s+(%a+ ?o?f?)%s+([^:]+):%s*(.*)$")
      if not where then fail("cannot read the note") end
      where = trim(where)
      local ids = {}
      for id in who:gmatch("[^,]+") do ids[#ids + 1] = participant(id) end
      if where ~= "over" and where ~= "left of" and where ~= "right of" then fail("cannot read the note") end
      add({ type = "note", where = where, a = ids[1], b = ids[2] or ids[1], text = text })
    elseif word == "loop" or word == "alt" or word == "opt" or word == "par" or word == "critical"
        or word == "break" or word == "rect" then
      local block = { type = "block", kind = word, sections = { { label = trim(line:sub(#word + 1)), items = {} } } }
      add(block)
      stack[#stack + 1] = block
    elseif word == "else" or word == "and" or word == "option" then
      local top = stack[#stack]
      if top.kind == "root" then fail(word .. " outside a block") end
      top.sections[#top.sections + 1] = { label = trim(line:sub(#word + 1)), items = {}, word = word }
    elseif line == "end" then
      if #stack == 1 then fail("end without a block") end
      table.remove(stack)
    else
      local best
      for _, a in ipairs(arrows) do
        local p = line:find(a[1], 1, true)
        if p and (not best or p < best.p or (p == best.p and #a[1] > #best.a[1])) then best = { p = p, a = a } end
      end
      if not best then fail("cannot read") end
      local from = trim(line:sub(1, best.p - 1))
      local rest = line:sub(best.p + #best.a[1]):gsub("^[%+%-]", "")
      local to, text = rest:match("^([^:]+):?(.*)$")
      if from == "" or not to then fail("cannot read the message") end
      add({ type = "msg", from = participant(from), to = participant(to), line = best.a[2],
            head = best.a[3], text = trim(text) })
    end
  end
  if #stack > 1 then error("a block is never closed (end)", 0) end
  seq.root = root
  return seq
end

local function render_sequence(seq)
  local n = #seq.participants
  local out, counter = {}, 0
  local function push(s) out[#out + 1] = s end
  local function span(a, b)
    local lo, hi = math.min(a, b), math.max(a, b)
    return lo, hi - lo + 1
  end
  local function actors(extra)
    push('<div class="seq-row seq-actors' .. extra .. '">')
    for i, p in ipairs(seq.participants) do
      push(string.format('<div class="seq-actor" style="grid-column:%d">%s</div>', i, text_html(p.label)))
    end
    push("</div>")
  end
  local render_items
  local function render_item(item, depth)
    if item.type == "msg" then
      counter = counter + 1
      local num = seq.autonumber and string.format('<span class="seq-num">%d</span> ', counter) or ""
      if item.from == item.to then
        push(string.format('<div class="seq-row"><div class="seq-msg seq-self seq-%s seq-head-%s" ' ..
          'style="grid-column:%d / span %d"><span class="seq-text">%s%s</span><span class="seq-line"></span></div></div>',
          item.line, item.head, item.from, math.min(2, n - item.from + 1), num, text_html(item.text)))
      else
        local lo, k = span(item.from, item.to)
        push(string.format('<div class="seq-row"><div class="seq-msg seq-%s seq-head-%s seq-to-%s" ' ..
          'style="grid-column:%d / span %d; --k:%d"><span class="seq-text">%s%s</span><span class="seq-line"></span></div></div>',
          item.line, item.head, item.to > item.from and "right" or "left", lo, k, k, num, text_html(item.text)))
      end
    elseif item.type == "note" then
      local lo, k = span(item.a, item.b)
      local cls = "over"
      if item.where == "left of" then
        if item.a > 1 then lo, k = item.a - 1, 1 end
        cls = "left"
      elseif item.where == "right of" then
        if item.a < n then lo, k = item.a + 1, 1 end
        cls = "right"
      end
      push(string.format('<div class="seq-row"><div class="seq-note seq-note-%s" style="grid-column:%d / span %d">%s</div></div>',
        cls, lo, k, text_html(item.text)))
    elseif item.type == "block" then
      push(string.format('<div class="seq-block seq-block-%s" style="--d:%d">', item.kind, depth))
      for i, section in ipairs(item.sections) do
        local cond = section.label ~= "" and string.format(' <span class="seq-cond">[%s]</span>', text_html(section.label)) or ""
        if i == 1 then
          push(string.format('<div class="seq-block-head"><span class="seq-kind">%s</span>%s</div>', item.kind, cond))
        else
          push(string.format('<div class="seq-else"><span class="seq-kind">%s</span>%s</div>', section.word, cond))
        end
        render_items(section.items, depth + 1)
      end
      push("</div>")
    end
  end
  render_items = function(items, depth) for _, it in ipairs(items) do render_item(it, depth) end end

  push(string.format('<div class="seq" style="--n:%d">', n))
  push('<div class="seq-lifelines" aria-hidden="true">')
  for i = 1, n do push(string.format('<i style="left:calc(%d.5 * 100%% / %d)"></i>', i - 1, n)) end
  push("</div>")
  actors("")
  render_items(seq.root.sections[1].items, 0)
  actors(" seq-actors-end")
  push("</div>")
  return table.concat(out, "\n")
end

---------------------------------------------------------------------------------------

local function source_details(src)
  return string.format('<details class="diagram-src"><summary>%s</summary><pre><code>%s</code></pre></details>',
    W.source, html_escape(src))
end

local function source_box(src, kind)
  return string.format('<figure class="diagram diagram-source" data-kind="%s"><figcaption>%s</figcaption>' ..
    '<pre><code>%s</code></pre></figure>', html_escape(kind), W.shown_as_text, html_escape(src))
end

local function draw(src)
  local lines = {}
  for line in (src .. "\n"):gmatch("(.-)\r?\n") do
    if trim(line) ~= "" and not trim(line):match("^%%%%") then lines[#lines + 1] = line end
  end
  if #lines == 0 then return source_box(src, "empty"), "source", "empty", "empty diagram" end
  local kind = trim(lines[1]):match("^(%a+)") or "?"
  diagram_count = diagram_count + 1
  if kind == "flowchart" or kind == "graph" then
    if dot_program == "" then
      return source_box(src, kind), "source", "flowchart", "Graphviz (dot) not found where the site was built"
    end
    local ok, g = pcall(parse_flowchart, lines)
    if not ok then return source_box(src, kind), "source", "flowchart", g end
    local dot_src = to_dot(g)
    local ran, svg = pcall(pandoc.pipe, dot_program, { "-Tsvg" }, dot_src)
    if not ran or not svg:find("<svg") then
      return source_box(src, kind), "source", "flowchart", "dot failed: " .. tostring(svg)
    end
    return string.format('<figure class="diagram diagram-flowchart">%s%s</figure>',
      clean_svg(svg, W.flowchart), source_details(src)), "drawn", "flowchart", ""
  elseif kind == "sequenceDiagram" then
    local ok, seq = pcall(parse_sequence, lines)
    if not ok then return source_box(src, kind), "source", "sequence", seq end
    return string.format('<figure class="diagram diagram-sequence" role="img" aria-label="%s">%s%s</figure>',
      W.sequence, render_sequence(seq), source_details(src)), "drawn", "sequence", ""
  end
  return source_box(src, kind), "source", kind, "not drawn offline: only flowcharts and sequence diagrams are"
end

function CodeBlock(block)
  if block.classes[1] ~= "mermaid" then return nil end
  local html, status, kind, why = draw(block.text)
  report(status, kind, why)
  return pandoc.RawBlock("html", html)
end
