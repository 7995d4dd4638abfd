import sys, time, numpy as np
sys.path.insert(0,'.'); sys.path.insert(0,'bench/signals')
import real_messages as R
from memdown.index.embedder import FastEmbedder
from memdown.signals.clean import clean_prompt, looks_relayed
from memdown.signals.text import to_simplified
items = R.load_items(R.REPO.parent/'shared'/'transcripts')
e = FastEmbedder(threads=1)
t=time.time()
texts=[to_simplified(clean_prompt(i['text']))[:500] or '.' for i in items]
V=np.array(e.embed(texts)); print('embed', len(texts), time.time()-t)
V/=np.linalg.norm(V,axis=1,keepdims=True)
y=np.array([i['label']!='none' for i in items]); h=np.array([i['half'] for i in items])
pat=np.array([bool(R.RULE_TYPES & set(i['got'])) for i in items])
rel=np.array([looks_relayed(i['text']) for i in items])
dev=h=='dev'; test=h=='test'
def knn_scores(Q, ref, refy, k):
    S=Q@ref.T
    out=[]
    for row in S:
        idx=np.argsort(-row)[:k]; w=row[idx]
        out.append((w*refy[idx]).sum()/w.sum())
    return np.array(out)
def pr(pred, mask):
    tp=(pred&y&mask).sum(); fp=(pred&~y&mask).sum(); fn=(~pred&y&mask).sum()
    return round(tp/max(1,tp+fp),2), round(tp/max(1,tp+fn),2)
# leave-one-out on dev for tuning
Vd=V[dev]; yd=y[dev]
for k in (3,5,7,11):
    S=Vd@Vd.T; np.fill_diagonal(S,-1)
    sc=[]
    for row in S:
        idx=np.argsort(-row)[:k]; w=np.clip(row[idx],0,None)+1e-6; sc.append((w*yd[idx]).sum()/w.sum())
    sc=np.array(sc)
    for th in (0.4,0.5,0.6):
        knn=(sc>=th)&~rel[dev]
        m=np.ones(dev.sum(),bool)
        yy=yd
        def prd(p):
            tp=(p&yy).sum(); fp=(p&~yy).sum(); fn=(~p&yy).sum(); return round(tp/max(1,tp+fp),2), round(tp/max(1,tp+fn),2)
        print('LOO dev k',k,'th',th,'knn',prd(knn),'pat|knn',prd(knn|pat[dev]),'pat&knn', prd(knn&pat[dev]))
