import numpy as np, math
# 1) raw lstsq: 30 x 4 with formula data
n,p=30,4
A=np.array([[math.sin(0.7*i*(j+1)+j)+ (1.0 if j==0 else 0.0) for j in range(p)] for i in range(n)])
b=np.array([1.5*A[i,0]-2.0*A[i,1]+0.25*A[i,2]+3*A[i,3]+0.1*math.cos(1.3*i) for i in range(n)])
x,res,rk,sv=np.linalg.lstsq(A,b,rcond=None)
r=b-A@x; rss=r@r
se=np.sqrt(np.diag(np.linalg.inv(A.T@A))*rss/(n-p))
print("lstsq x", ", ".join("%.17g"%v for v in x)); print("lstsq rss %.17g"%rss); print("lstsq se", ", ".join("%.17g"%v for v in se))
# 2) regress: grid layers x nodes x batch, y = formula, log on nodes,batch, interactions
rows=[]
for L in [4,8,16,32]:
  for N in [32,64,128,256,512]:
    for B in [64,256,1024]:
      y=0.3+0.05*math.log(N)+0.08*math.log(B)-0.002*L+0.01*math.log(N)*math.log(B)/10+0.02*math.sin(L*N*B)
      rows.append((L,N,B,y))
R=np.array(rows); X=R[:,:3].copy(); y=R[:,3]
X[:,1]=np.log(X[:,1]); X[:,2]=np.log(X[:,2])
Z=(X-X.mean(0))/X.std(0,ddof=1)
cols=[Z[:,0],Z[:,1],Z[:,2]]
for a in range(3):
  for c in range(a+1,3):
    v=Z[:,a]*Z[:,c]; cols.append((v-v.mean())/v.std(ddof=1))
D=np.column_stack([np.ones(len(y))]+cols)
w,_,_,_=np.linalg.lstsq(D,y,rcond=None)
r=y-D@w; rss=r@r; n=len(y); k=D.shape[1]-1
se=np.sqrt(np.diag(np.linalg.inv(D.T@D))*rss/(n-k-1))
tss=((y-y.mean())**2).sum(); r2=1-rss/tss; adj=1-(1-r2)*(n-1)/(n-k-1)
print("reg w", ", ".join("%.17g"%v for v in w)); print("reg se", ", ".join("%.17g"%v for v in se))
print("reg r2 %.17g adj %.17g"%(r2,adj))
# 3) percentiles
d=[3.5, -1, 7, 2, 2, 10, 0.25, 4, 8, 6.5, 1]
print("pct", ", ".join("%.17g"%np.percentile(d,q) for q in [0,2,9,25,50,75,91,98,100,33.3]))
