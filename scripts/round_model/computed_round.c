/* Model of one MWUMKL round on sonar computing the base kernels' columns from the
 * features instead of reading a table (docs/BENCHMARKS.md): 60 per-feature groups and one
 * all-feature group of 12 kernels (3 polynomials, 9 Gaussians whose widths double: one exp,
 * then squarings), the same h / acc updates as table_round.c. Build and run:
 *   gcc -O3 -march=native -o /tmp/ch scripts/round_model/computed_round.c -lm && /tmp/ch
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <math.h>
#include <string.h>
static inline double expl_(double x){ // same structure as exp_lanes
  const double LOG2E=1.4426950408889634, SHIFT=6755399441055744.0;
  const double HI=0.6931471803691238, LO=1.9082149292705877e-10;
  if(x<-708)x=-708; if(x>709)x=709;
  double t=x*LOG2E+SHIFT, k=t-SHIFT, r=(x-k*HI)-k*LO;
  static const double C[14]={1,1,1./2,1./6,1./24,1./120,1./720,1./5040,1./40320,1./362880,1./3628800,1./39916800,1./479001600,1./6227020800.};
  double p=C[13]; for(int i=12;i>=0;i--) p=p*r+C[i];
  union{double d; unsigned long u;} a,b; a.d=t; b.d=SHIFT; unsigned long kb=a.u-b.u; union{unsigned long u; double d;} c; c.u=(kb+1023)<<52; return p*c.d;
}
int main(){
  int d=60,N=104,G=61,M=732; double *x=malloc(8*d*N); // feature-major
  for(int i=0;i<d*N;i++) x[i]=sin(i*0.37)*0.5+0.5;
  double *h=calloc(M*N,8), hy[104], acc[104]; for(int j=0;j<N;j++) hy[j]=(j&1)?0.5:-0.5;
  double colp[12][104], colr[12][104], dp[104], dr[104];
  unsigned s=1; struct timespec a,b; clock_gettime(CLOCK_MONOTONIC,&a); int R=2660;
  for(int round=0;round<R;round++){
    s=s*1103515245+12345; int p=(s>>8)%N; s=s*1103515245+12345; int r=(s>>8)%N;
    memset(acc,0,sizeof acc);
    for(int g=0;g<G;g++){
      if(g<d){ const double*f=x+g*N; double xp=f[p], xr=f[r];
        for(int j=0;j<N;j++){ double u=f[j]-xp, v=f[j]-xr; dp[j]=u*u; dr[j]=v*v; }
        for(int j=0;j<N;j++){ double u=f[j]*xp+1, v=f[j]*xr+1; colp[0][j]=u; colp[1][j]=u*u; colp[2][j]=u*u*u; colr[0][j]=v; colr[1][j]=v*v; colr[2][j]=v*v*v; }
      } else { for(int j=0;j<N;j++){ double sp=0,sr=0,tp=0,tr=0; for(int f=0;f<d;f++){ double q=x[f*N+j], u=q-x[f*N+p], v=q-x[f*N+r]; sp+=u*u; sr+=v*v; tp+=q*x[f*N+p]; tr+=q*x[f*N+r]; }
          dp[j]=sp; dr[j]=sr; colp[0][j]=tp+1; colp[1][j]=(tp+1)*(tp+1); colp[2][j]=colp[1][j]*(tp+1); colr[0][j]=tr+1; colr[1][j]=(tr+1)*(tr+1); colr[2][j]=colr[1][j]*(tr+1);} }
      for(int j=0;j<N;j++){ colp[11][j]=expl_(-dp[j]*(1.0/512)); colr[11][j]=expl_(-dr[j]*(1.0/512)); }
      for(int k=10;k>=3;k--) for(int j=0;j<N;j++){ colp[k][j]=colp[k+1][j]*colp[k+1][j]; colr[k][j]=colr[k+1][j]*colr[k+1][j]; }
      for(int k=0;k<12;k++){ double*hi=h+(g*12+k)*N; double w=1.0+k*1e-3;
        for(int j=0;j<N;j++){ hi[j]+=hy[j]*(colp[k][j]-colr[k][j]); acc[j]+=w*hi[j]; } }
    }
  }
  clock_gettime(CLOCK_MONOTONIC,&b); double sec=(b.tv_sec-a.tv_sec)+(b.tv_nsec-a.tv_nsec)*1e-9;
  printf("per round %.1f us (%g)\n", sec/R*1e6, acc[3]);
}
