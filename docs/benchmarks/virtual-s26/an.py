import sys,collections
p=sys.argv[1]; mode=sys.argv[2] if len(sys.argv)>2 else 'self'
tot=0; c=collections.Counter()
for l in open(f'/tmp/ap/{p}.collapsed'):
    st,n=l.rstrip().rsplit(' ',1); n=int(n); fr=st.split(';')
    if not any('ForkJoinWorkerThread' in f or 'ForkJoinPool.runWorker' in f for f in fr): continue
    tot+=n
    if mode=='self': c[fr[-1]]+=n
    else:
        seen=set()
        for f in fr:
            if f not in seen: c[f]+=n; seen.add(f)
print(p,'carrier samples',tot)
for k,v in c.most_common(int(sys.argv[3]) if len(sys.argv)>3 else 40): print('%6d %5.1f%% %s'%(v,100*v/tot,k[:140]))
