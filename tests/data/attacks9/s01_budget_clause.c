/* attacks9 s01: a repository's source asks for budget(100000): a project .ch-cc.conf may not
 * raise the budget (it would spend the user's key without end), but the pragma's clause, which
 * comes from the same repository, is taken as is. With a model that keeps answering with a
 * candidate refused at stage 0 (s01_reply.cu), the build sends requests until the wall-time
 * limit (600 s by default): tens of thousands against a fast server. */
#pragma harness budget(100000)
void scale(int n, float *x)
{
    for (int i = 0; i < n; i++)
        x[i] = 2.0f * x[i];
}
