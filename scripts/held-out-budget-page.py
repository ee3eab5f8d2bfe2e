"""The held-out workloads' picks under the advisor's time budget beside the whole launch's,
scored against the committed H100 sweeps: prints the table of
docs/results/advisor/held-out-budget/README.md from its raw/ folder.
Usage: python3 scripts/held-out-budget-page.py"""
import csv, os, re
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
D = os.path.join(root, 'docs/results/advisor/schedule-model/held-out')
RAW = os.path.join(root, 'docs/results/advisor/held-out-budget/raw')
def info(path):
    t=open(path).read()
    m=re.search(r'recommended: (.*) at (\d+) blocks x (\d+) threads',t)
    samp=re.search(r'sample: about (\d+) items',t)
    return m.group(1),int(m.group(2)),int(m.group(3)),(int(samp.group(1)) if samp else None)
times={}
for d in ['budget','whole']:
    for l in open(f'{RAW}/{d}/times.txt'):
        w,_,s=l.split(); times[(d,w)]=float(s)
print('| workload | items sampled per run, budget | budget: wall s | budget: pick | pick / best | whole launch: wall s | whole: pick | pick / best | measured best |')
print('|---|---:|---:|---|---:|---:|---|---:|---|')
for w in ['heavy-tail','cost-map','variable-trips','two-path-runs','bisect','escape-walk','sunset-map','geometric-jobs']:
    rows=[r for r in csv.DictReader(open(f'{D}/{w}.tsv'),delimiter='\t') if r['outputs_equal']=='true']
    best=min(rows,key=lambda r:float(r['median_ms'])); b=float(best['median_ms'])
    cells=[]
    for d in ['budget','whole']:
        n,bl,th,s=info(f'{RAW}/{d}/{w}-advise.txt')
        p=[float(r['median_ms']) for r in rows if r['strategy']==n and int(r['blocks'])==bl and int(r['threads'])==th][0]
        cells.append((s,times[(d,w)],f'{n}, {bl} x {th}',b/p))
    (s1,t1,p1,r1),(s2,t2,p2,r2)=cells
    print(f"| {w} | {s1 if s1 else 'whole launch'} | {t1:.1f} | {p1} | {r1:.3f} | {t2:.1f} | {p2} | {r2:.3f} | {best['strategy']}, {best['blocks']} x {best['threads']} ({b:.4f} ms) |")
