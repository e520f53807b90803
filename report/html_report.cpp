#include "report/html_report.hpp"

#include "core/mirrored_interval.hpp"

#include "core/critical_path.hpp"
#include "core/trace_names.hpp"
#include "report/job_record.hpp"
#include "report/json_text.hpp"
#include "report/timeline_slice.hpp"
#include "report/training_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace echo::report {

namespace {

using nlohmann::json;
using workloads::TaskKind;

// Microseconds rounded to the nanosecond, so the page is the same for the same run.
double us(double seconds) { return std::round(seconds * 1e9) / 1e3; }

// Which ranks the timeline shows (timeline_slice's choice, in words).
std::string slice_description(const workloads::Workload& w) {
  const auto has = [&](const char* slot) { return std::find(w.slots.begin(), w.slots.end(), slot) != w.slots.end(); };
  if (!has("dp"))
    return "the first ranks";
  return has("pp") ? "one data-parallel replica, its ranks of every pipeline stage" : "one data-parallel replica";
}

// The run's recorded settings as [key, value] rows (what `compare` diffs).
json settings(const core::SimulationResult& r) {
  nlohmann::json summary = nlohmann::json::object();
  if (r.job)
    summary["job"] = job_record(*r.job);
  if (r.training && !r.training->settings.empty())
    for (const auto& [key, value] : r.training->settings)
      summary["workload"]["settings"][key] = value;
  json rows = json::array();
  for (const auto& [key, value] : recorded_settings(summary))
    rows.push_back({key, value});
  return rows;
}

json breakdown_bars(const core::SimulationResult& r) {
  json bars = json::array();
  const std::size_t n = r.per_rank.size();
  const std::size_t group = std::max<std::size_t>(1, (n + kMaxBars - 1) / kMaxBars);
  for (std::size_t first = 0; first < n; first += group) {
    const std::size_t last = std::min(n, first + group);
    double compute = 0, idle = 0, slowdown = 0;
    std::vector<double> by_slot(r.slots.size(), 0.0);
    for (std::size_t i = first; i < last; ++i) {
      compute += r.per_rank[i].compute_s - r.per_rank[i].slowdown_s;
      slowdown += r.per_rank[i].slowdown_s;
      idle += r.per_rank[i].idle_s;
      for (std::size_t s = 0; s < by_slot.size() && s < r.per_rank[i].exposed_by_slot_s.size(); ++s)
        by_slot[s] += r.per_rank[i].exposed_by_slot_s[s];
    }
    const double k = static_cast<double>(last - first);
    const std::string label = group == 1 ? std::to_string(r.per_rank[first].rank)
                                         : std::to_string(r.per_rank[first].rank) + "-" + std::to_string(r.per_rank[last - 1].rank);
    json slots = json::array();
    for (double v : by_slot)
      slots.push_back(us(v / k));
    bars.push_back({label, us(compute / k), slots, us(idle / k), us(slowdown / k)});
  }
  return bars;
}

json timeline(const core::SimulationResult& r, const workloads::Workload& w) {
  json rows = json::array(), items = json::array(), names = json::array();
  std::map<std::string, std::size_t> name_index;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> row_of;
  for (std::uint32_t rank : timeline_slice(w, kTimelineRanks))
    for (std::uint32_t s = 0; s < w.program(rank).streams.size(); ++s) {
      row_of[{rank, s}] = rows.size();
      rows.push_back("rank " + std::to_string(rank) + " / " + w.program(rank).streams[s]);
    }
  // How NCCL ran each collective, for the hover text.
  std::map<std::tuple<std::string, std::string, std::uint64_t>, std::string> choice;
  for (const core::CollectiveStat& c : r.collective_stats)
    choice[{c.communicator, c.op, c.bytes}] = c.choice;
  // A mirrored rank (rank folding) shows its representative's intervals on its own communicators.
  const core::RankIntervals intervals(r, w);
  std::vector<std::uint32_t> ranks = timeline_slice(w, kTimelineRanks);
  std::sort(ranks.begin(), ranks.end());
  auto add_item = [&](const core::Interval& iv) {
    if (!row_of.contains({iv.rank, iv.stream}) || items.size() >= kMaxTimelineItems)
      return;
    const workloads::ProgramTask& t = w.program(iv.rank).tasks[iv.task];
    std::string label = t.name;
    if (t.kind == TaskKind::collective) {
      const std::string& comm = w.communicators[iv.comm].name;
      auto it = choice.find({comm, std::string(core::op_name(t)), t.bytes});
      label += " (" + std::string(core::op_name(t)) + ", " + std::to_string(t.bytes) + " B, " + comm +
               (it != choice.end() ? ", " + it->second : "") + ")";
    } else if (t.kind != TaskKind::compute) {
      label += " (" + std::string(core::op_name(t)) + ", " + std::to_string(t.bytes) + " B)";
    }
    auto [it, fresh] = name_index.emplace(label, names.size());
    if (fresh)
      names.push_back(label);
    items.push_back({row_of[{iv.rank, iv.stream}], us(iv.start_s), us(iv.end_s - iv.start_s),
                     t.kind == TaskKind::compute ? 0 : 1, it->second});
  };
  for (std::uint32_t rank : ranks)
    intervals.for_rank(rank, add_item);
  return {{"rows", rows}, {"items", items}, {"names", names}, {"truncated", items.size() >= kMaxTimelineItems}};
}

json critical(const core::SimulationResult& r) {
  json path = json::array(), top = json::array(), kinds = json::array();
  std::map<std::string, double> by_kind;
  for (const core::CriticalSegment& c : r.critical_path) {
    if (path.size() < 5000)
      path.push_back({c.rank, us(c.start_s), us(c.duration_s), c.name, c.kind});
    by_kind[c.kind] += c.duration_s;
  }
  for (const auto& [kind, s] : by_kind)
    kinds.push_back({kind, us(s)});
  for (const core::CriticalContribution& c : core::critical_path_top(r.critical_path, 15))
    top.push_back({c.name, c.kind, us(c.duration_s)});
  return {{"path", path}, {"top", top}, {"kinds", kinds}};
}

json collectives(const core::SimulationResult& r) {
  json out = json::array();
  for (std::size_t i = 0; i < r.collective_stats.size() && i < 20; ++i) {
    const core::CollectiveStat& c = r.collective_stats[i];
    const double algbw = c.total_s > 0 ? static_cast<double>(c.bytes) * static_cast<double>(c.calls) / c.total_s / 1e9 : 0.0;
    out.push_back({c.communicator, c.op, c.bytes, c.calls, us(c.total_s), c.choice, std::round(algbw * 100) / 100});
  }
  return out;
}

// The page. Data goes in as JSON; the script draws everything, and marks the body
// data-rendered="ok" when done or data-error="..." if anything threw (the browser test reads both).
constexpr const char* kHead = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>echo-des report</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px}
.muted{color:#666} .big{font-size:28px;font-weight:600}
table{border-collapse:collapse} td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
#gantt{border:1px solid #ccc;cursor:grab;display:block}
#tip{position:fixed;pointer-events:none;background:#fff;border:1px solid #999;padding:4px 8px;display:none;font-size:12px}
.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
</style></head><body>
<div id="error" style="color:#b00"></div>
<h1 id="title"></h1><div id="sub" class="muted"></div>
<div class="big" id="headline"></div>
<details id="settings"><summary>settings this run used (job, overrides, environment, defaults made explicit)</summary><table id="settingstable"></table></details>
<h2>Where each rank's time goes</h2>
<div class="key" id="key"></div>
<svg id="bars" width="1200" height="250"></svg>
<h2>Timeline <span class="muted" id="tlnote"></span></h2>
<div id="tlbox"><div class="muted">Wheel to zoom, drag to pan. Blue: compute, red: communication, black underline: the critical path.</div>
<canvas id="gantt" width="1200" height="300"></canvas></div><div id="tip"></div>
<h2>Critical path: what the iteration's time is made of</h2><div id="kinds"></div><table id="critical"></table>
<h2>Collectives that took longest</h2><table id="colls"></table>
<script>
window.onerror=function(m){document.body.dataset.error=String(m);document.getElementById('error').textContent='report error: '+m;};
const D=)HTML";

constexpr const char* kTail = R"HTML(;
(function(){
const fmt=v=>v>=1000?(v/1000).toFixed(3)+' ms':v.toFixed(3)+' us';
const esc=t=>String(t).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
document.getElementById('title').textContent=D.workload;
document.getElementById('sub').textContent=D.platform+' - '+D.ranks+' ranks';
document.getElementById('settingstable').innerHTML=D.settings.map(kv=>'<tr><td>'+esc(kv[0])+'</td><td>'+esc(kv[1])+'</td></tr>').join('');
document.getElementById('headline').textContent='iteration time '+fmt(D.iteration_us)+(D.training?' - '+Math.round(D.training.tokens_per_s)+' tokens/s - '+D.training.tflops_per_gpu.toFixed(1)+' TFLOP/s per GPU - MFU '+(100*D.training.mfu).toFixed(1)+'% - peak memory '+(D.training.peak_memory_bytes/1073741824).toFixed(1)+' of '+(D.training.memory_capacity_bytes/1073741824).toFixed(1)+' GiB':'');
// Stacked bars: compute, the overlap slowdown, exposed communication per communicator slot
// (tp, dp, pp, ...), then idle (the pipeline bubble when the job is pipelined). A slot keeps its
// colour in every report: by name, not by its place in this job's list.
const slotColor={tp:'#e15759',dp:'#f28e2b',pp:'#edc948',cp:'#b07aa1',ep:'#ff9da7',edp:'#9c755f',embd:'#76b7b2'};
const spare=['#59a14f','#8cd17d','#d4a6c8','#86bcb6','#e49444','#d37295'];
const colorOf=n=>slotColor[n]||spare[[...n].reduce((h,c)=>(h*31+c.charCodeAt(0))>>>0,0)%spare.length];
const parts=[['compute','#4e79a7'],['overlap slowdown','#17becf']].concat(D.slots.map(n=>['exposed '+n+' communication',colorOf(n)])).concat([[D.pipelined?'pipeline bubble':'idle','#bab0ac']]);
document.getElementById('key').innerHTML=parts.map(p=>'<span style="background:'+p[1]+'"></span>'+esc(p[0])).join('');
const svg=document.getElementById('bars'),left0=84,W=1200,top0=8,H=200,n=D.bars.length,bw=Math.max(0.5,(W-left0-10)/n);
const values=b=>[b[1],b[4]].concat(b[2]).concat([b[3]]);
const tallest=Math.max(...D.bars.map(b=>values(b).reduce((a,c)=>a+c,0)),1e-9);
// y axis: round ticks (1, 2 or 5 times a power of ten) up to the tallest bar.
const raw=tallest/4,mag=Math.pow(10,Math.floor(Math.log10(raw))),step=[1,2,5,10].map(m=>m*mag).find(v=>v>=raw);
const ticks=Math.ceil(tallest/step-1e-9),maxT=ticks*step;
const tickFmt=v=>v===0?'0':v>=1e6?+(v/1e6).toPrecision(4)+' s':v>=1000?+(v/1000).toPrecision(4)+' ms':+v.toPrecision(4)+' us';
let s='';
for(let k=0;k<=ticks;k++){const v=step*k,y=top0+H-v/maxT*H;
s+='<line class="ytick" x1="'+(left0-4)+'" x2="'+W+'" y1="'+y+'" y2="'+y+'" stroke="'+(k?'#eee':'#999')+'"/><text x="'+(left0-6)+'" y="'+(y+4)+'" font-size="11" text-anchor="end">'+tickFmt(v)+'</text>';}
D.bars.forEach((b,i)=>{let y=top0+H;values(b).forEach((v,j)=>{const h=v/maxT*H;y-=h;if(h<=0)return;
s+='<rect x="'+(left0+i*bw)+'" y="'+y+'" width="'+Math.max(bw-(bw>4?1:0),0.5)+'" height="'+h+'" fill="'+parts[j][1]+'"><title>rank '+esc(b[0])+', '+esc(parts[j][0])+': '+fmt(v)+'</title></rect>';});});
// x axis: a rank label every few bars, at most about 16.
const every=Math.max(1,Math.ceil(n/16));
for(let i=0;i<n;i+=every){const x=left0+(i+0.5)*bw;
s+='<line x1="'+x+'" x2="'+x+'" y1="'+(top0+H)+'" y2="'+(top0+H+4)+'" stroke="#999"/><text class="xtick" x="'+x+'" y="'+(top0+H+16)+'" font-size="11" text-anchor="middle">'+esc(D.bars[i][0])+'</text>';}
s+='<text class="axis" x="'+(left0+(W-left0)/2)+'" y="'+(top0+H+34)+'" font-size="12" text-anchor="middle">'+(D.bars.length&&String(D.bars[0][0]).includes('-')?'ranks (each bar the mean of a group)':'rank')+'</text>';
s+='<text class="axis" x="12" y="'+(top0+H/2)+'" font-size="12" text-anchor="middle" transform="rotate(-90 12 '+(top0+H/2)+')">time</text>';
svg.innerHTML=s;
// Gantt.
const T=D.timeline,cv=document.getElementById('gantt'),ctx=cv.getContext('2d'),rowH=18,left=150;
cv.height=Math.max(60,T.rows.length*rowH+20);
document.getElementById('tlnote').textContent=D.recorded?'('+T.rows.length+' streams: '+D.slice+(T.truncated?', truncated':'')+')':'(not recorded: the job has output.timeline: false; set it to true to see the timeline and the critical path)';
if(!D.recorded)document.getElementById('tlbox').style.display='none';
let t0=0,t1=Math.max(D.iteration_us,1e-3);
const crit=D.critical.path;
function draw(){ctx.clearRect(0,0,cv.width,cv.height);const sc=(cv.width-left)/(t1-t0);
ctx.font='11px sans-serif';ctx.fillStyle='#333';
T.rows.forEach((r,i)=>ctx.fillText(r,4,i*rowH+13));
for(const it of T.items){const x=left+(it[1]-t0)*sc,w=Math.max(it[2]*sc,0.5);if(x>cv.width||x+w<left)continue;
ctx.fillStyle=it[3]?'#e15759':'#4e79a7';ctx.fillRect(Math.max(x,left),it[0]*rowH+2,w,rowH-4);}
ctx.fillStyle='#000';
for(const c of crit){const row=T.rows.findIndex(r=>r.startsWith('rank '+c[0]+' /'));if(row<0)continue;
const x=left+(c[1]-t0)*sc,w=Math.max(c[2]*sc,1);if(x>cv.width||x+w<left)continue;ctx.fillRect(Math.max(x,left),row*rowH+rowH-3,w,3);}
ctx.fillStyle='#666';ctx.fillText(fmt(t0),left,cv.height-4);ctx.fillText(fmt(t1),cv.width-90,cv.height-4);}
draw();
cv.addEventListener('wheel',e=>{e.preventDefault();const f=e.deltaY>0?1.25:0.8,sc=(cv.width-left)/(t1-t0),
m=t0+(e.offsetX-left)/sc;t0=m-(m-t0)*f;t1=m+(t1-m)*f;draw();});
let drag=null;cv.addEventListener('mousedown',e=>drag=e.offsetX);window.addEventListener('mouseup',()=>drag=null);
const tip=document.getElementById('tip');
cv.addEventListener('mousemove',e=>{const sc=(cv.width-left)/(t1-t0);
if(drag!==null){const d=(e.offsetX-drag)/sc;t0-=d;t1-=d;drag=e.offsetX;draw();return;}
const row=Math.floor(e.offsetY/rowH),t=t0+(e.offsetX-left)/sc;
const it=T.items.find(i=>i[0]===row&&i[1]<=t&&t<=i[1]+i[2]);
if(!it){tip.style.display='none';return;}
tip.style.display='block';tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';
tip.textContent=T.names[it[4]]+' - '+fmt(it[2])+' from '+fmt(it[1]);});
cv.addEventListener('mouseleave',()=>tip.style.display='none');
// Tables.
const total=D.iteration_us;
let h='<tr><th>task</th><th>kind</th><th class="num">time on the path</th><th class="num">share</th></tr>';
for(const c of D.critical.top)h+='<tr><td>'+esc(c[0])+'</td><td>'+esc(c[1])+'</td><td class="num">'+fmt(c[2])+'</td><td class="num">'+(100*c[2]/total).toFixed(1)+'%</td></tr>';
document.getElementById('kinds').textContent=D.critical.kinds.map(k=>k[0]+' '+(100*k[1]/total).toFixed(1)+'%').join(', ');
document.getElementById('critical').innerHTML=D.critical.top.length?h:'<tr><td>'+(D.recorded?'no critical path: nothing ran':'not recorded: the job has output.timeline: false')+'</td></tr>';
h='<tr><th>communicator</th><th>op</th><th class="num">bytes</th><th class="num">calls</th><th class="num">summed time</th><th>algorithm/protocol/channels</th><th class="num">algbw GB/s</th></tr>';
for(const c of D.collectives)h+='<tr><td>'+esc(c[0])+'</td><td>'+esc(c[1])+'</td><td class="num">'+c[2]+'</td><td class="num">'+c[3]+'</td><td class="num">'+fmt(c[4])+'</td><td>'+esc(c[5])+'</td><td class="num">'+c[6]+'</td></tr>';
document.getElementById('colls').innerHTML=h;
document.body.dataset.rendered='ok';
})();
</script></body></html>
)HTML";

} // namespace

void write_html_report(std::ostream& out, const core::SimulationResult& r, const workloads::Workload& w) {
  json data = {{"workload", r.workload_name.empty() ? r.workload_source : r.workload_name},
               {"platform", r.platform},
               {"ranks", r.ranks},
               {"iteration_us", us(r.iteration_time_s)},
               {"slots", r.slots},
               {"bars", breakdown_bars(r)},
               {"pipelined", r.training && r.training->pp > 1},
               {"timeline", timeline(r, w)},
               {"slice", slice_description(w)},
               {"recorded", !r.intervals.empty()},
               {"settings", settings(r)},
               {"critical", critical(r)},
               {"collectives", collectives(r)}};
  if (const auto figures = training_figures(r))
    data["training"] = training_json(*figures);
  // Inside <script>, "</" would end the element: escape it.
  std::string text = json_text(data);
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  out << kHead << text << kTail;
}

} // namespace echo::report
