-- Pandoc Lua filter of the course site (grader/site/): points the notes' relative links and images at the generated site.
--
-- A link is relative to the Markdown file it is written in, as on GitHub; the builder's
-- link map ($SITE_LINKMAP: "<repo path>\t<lang or *>\t<site path>" per line) turns
-- 04-attention.en.md into 04-attention.en.html, ../README.md into index.<lang>.html and
-- so on. Any other course file becomes its page under files/ (a source view, or for an
-- image the file itself), which the builder then writes: each is reported to
-- $SITE_REPORT as "need <view|asset> <repo path>". Links in raw HTML (<img src>, <a href>)
-- are rewritten the same way. Also counts the page's math for the report ("math <n>") and
-- puts each table in a scrolling box.
--   $SITE_SOURCE  the page's Markdown file, relative to the repository root
--   $SITE_PAGE    the page's path in the site (for relative links)
--   $SITE_LANG    en or zh

local source = os.getenv("SITE_SOURCE") or ""
local page = os.getenv("SITE_PAGE") or ""
local lang = os.getenv("SITE_LANG") or "en"
local report_path = os.getenv("SITE_REPORT")

local linkmap = {}
do
  local f = io.open(os.getenv("SITE_LINKMAP") or "", "r")
  if f then
    for line in f:lines() do
      local repo, l, site = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)$")
      if repo then linkmap[repo .. "\t" .. l] = site end
    end
    f:close()
  end
end

local records = {}
local function record(...) records[#records + 1] = table.concat({ ... }, "\t") end

local image_ext = { svg = true, png = true, jpg = true, jpeg = true, gif = true, webp = true, pdf = true }

-- a/b/../c/./d → a/c/d; nil when the path leaves the repository.
local function normalize(path)
  local parts = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then
      if #parts == 0 then return nil end
      table.remove(parts)
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  return table.concat(parts, "/")
end

local function url_decode(s) return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end)) end

-- From this page's folder to a site path.
local up = string.rep("../", select(2, page:gsub("/", "")))

local function resolve(target, as_image)
  if target == "" or target:match("^#") or target:match("^%a[%w+.%-]*:") or target:match("^//") then
    return nil  -- in-page anchors, the web, mailto: left as they are
  end
  local path, frag = target:match("^([^#?]*)(.*)$")
  if path == "" then return nil end
  path = url_decode(path)
  local dir = source:match("^(.*)/[^/]*$") or ""
  local repo
  if path:sub(1, 1) == "/" then repo = normalize(path) else repo = normalize(dir .. "/" .. path) end
  if not repo then return nil end  -- outside the repository: the test reports it
  local site = linkmap[repo .. "\t" .. lang] or linkmap[repo .. "\t*"]
  if not site then
    local ext = (repo:match("%.(%w+)$") or ""):lower()
    if as_image or image_ext[ext] then
      site = "files/" .. repo
      record("need", "asset", repo)
    else
      site = "files/" .. repo .. "." .. lang .. ".html"
      record("need", "view", repo)
    end
  end
  return up .. site .. frag
end

function Link(link)
  local t = resolve(link.target, false)
  if t then link.target = t; return link end
end

function Image(img)
  local t = resolve(img.src, true)
  if t then img.src = t; return img end
end

local function rewrite_html(text)
  return (text:gsub('(%s)(%a+)=(["\'])(.-)%3', function(space, attr, q, value)
    local a = attr:lower()
    if a ~= "src" and a ~= "href" then return nil end
    local t = resolve(value, a == "src")
    if not t then return nil end
    return space .. attr .. "=" .. q .. t .. q
  end))
end

function RawInline(el)
  if el.format == "html" then el.text = rewrite_html(el.text); return el end
end

function RawBlock(el)
  if el.format == "html" then el.text = rewrite_html(el.text); return el end
end

local math_count = 0
function Math(m) math_count = math_count + 1 end

function Table(t)
  return pandoc.Div({ t }, pandoc.Attr("", { "table-wrap" }))
end

function Pandoc(doc)
  record("math", tostring(math_count))
  if report_path then
    local f = io.open(report_path, "a")
    if f then f:write(table.concat(records, "\n"), "\n"); f:close() end
  end
  return doc
end
