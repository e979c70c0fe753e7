import sys,re,collections,statistics as st
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    f=l.split()
    if not f: continue
    i=f.index('|'); wall=float(f[1]); m=[int(x) for x in f[i+1:i+21]]
    g=re.search(r'\| at(.*?) \| at2(.*?) \| end(.*)',l)
    P=lambda s: {k:int(v) for k,v in (kv.split('=') for kv in s.split())}
    a,b,e=P(g.group(1)),P(g.group(2)),P(g.group(3))
    d[f[0]].append(dict(wall=wall,first=m[0],pace=(m[17]-m[1])/16, **{'w_'+k: b.get(k,0)-a.get(k,0) for k in ['c1','c2','fj','main','gc']}, **{'s_'+k: a.get(k,0) for k in ['c1','c2','fj','main','gc']}))
base=d[sys.argv[2]]
for k,v in d.items():
    pr=[x['wall']/y['wall'] for x,y in zip(v,base)]
    h=2*st.stdev(pr)/len(pr)**.5 if len(pr)>1 else 0
    print(f"{k:7s} n={len(v)} wall {st.mean(x['wall'] for x in v):.3f} ({st.mean(pr):.3f}+-{h:.3f}) first50k {st.mean(x['first'] for x in v):.0f} pace {st.mean(x['pace'] for x in v):.1f} | 0-300:", ' '.join(f"{g}={st.mean(x['s_'+g] for x in v):.0f}" for g in ['c1','c2','fj','main','gc']), '| 300-1100:', ' '.join(f"{g}={st.mean(x['w_'+g] for x in v):.0f}" for g in ['c1','c2','fj','main','gc']))
